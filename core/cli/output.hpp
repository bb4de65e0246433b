// Terminal output helpers shared by the commands: JSON (for scripts) and aligned tables (for people).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "tritongym/sdk/status.hpp"

namespace tritongym::cli {

// Indented JSON, two spaces, keys in insertion order.
void print_json(std::ostream& out, const boost::json::value& value);

// Columns padded to the widest cell; the last column is not padded.
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

// "error: file.yaml:3:5: unknown key ..." on stderr.
void print_error(const Status& status);

}  // namespace tritongym::cli
