#include "cli/output.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <iostream>

namespace tritongym::cli {
namespace {

void print_indented(std::ostream& out, const boost::json::value& value, int depth) {
  std::string pad(static_cast<size_t>(depth) * 2, ' ');
  std::string inner(static_cast<size_t>(depth + 1) * 2, ' ');
  if (value.is_object()) {
    const auto& object = value.as_object();
    if (object.empty()) {
      out << "{}";
      return;
    }
    out << "{\n";
    size_t i = 0;
    for (const auto& entry : object) {
      out << inner << boost::json::serialize(boost::json::string(entry.key())) << ": ";
      print_indented(out, entry.value(), depth + 1);
      out << (++i < object.size() ? ",\n" : "\n");
    }
    out << pad << "}";
  } else if (value.is_array()) {
    const auto& array = value.as_array();
    if (array.empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    for (size_t i = 0; i < array.size(); ++i) {
      out << inner;
      print_indented(out, array[i], depth + 1);
      out << (i + 1 < array.size() ? ",\n" : "\n");
    }
    out << pad << "]";
  } else {
    out << boost::json::serialize(value);
  }
}

}  // namespace

void print_json(std::ostream& out, const boost::json::value& value) {
  print_indented(out, value, 0);
  out << "\n";
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  auto emit = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) {
      out << row[i];
      if (i + 1 < row.size()) out << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << "\n";
  };
  emit(header);
  for (const auto& row : rows) emit(row);
}

void print_error(const Status& status) {
  std::cerr << "error: ";
  if (!status.location().empty()) std::cerr << status.location() << ": ";
  std::cerr << status.message() << "\n";
}

}  // namespace tritongym::cli
