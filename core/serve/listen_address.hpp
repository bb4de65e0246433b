// `--listen ADDR:PORT`: an IPv4 address, an IPv6 one in brackets ([::1]:8080), or localhost; port 0 lets the
// system pick one.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <string>

#include "tritongym/sdk/status.hpp"

namespace tritongym::serve {

// invalid_argument names the text and says what is wrong with it.
Result<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& text);

}  // namespace tritongym::serve
