#include "serve/listen_address.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace tritongym::serve {

Result<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& text) {
  auto refuse = [&](const std::string& why) {
    return Status(StatusCode::invalid_argument, "--listen '" + text + "': " + why + " (ADDR:PORT, e.g. 127.0.0.1:8080)");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return refuse("no port");
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    return refuse("the port must be a number from 0 to 65535");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code bad;
  auto address = boost::asio::ip::make_address(host, bad);
  if (bad) return refuse("'" + host + "' is not an IP address");
  return boost::asio::ip::tcp::endpoint(address, static_cast<unsigned short>(port));
}

}  // namespace tritongym::serve
