#include "serve/bearer_token.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

namespace tritongym::serve {
namespace {

std::string trimmed(const std::string& text) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  auto begin = std::find_if_not(text.begin(), text.end(), space);
  auto end = std::find_if_not(text.rbegin(), std::string::const_reverse_iterator(begin), space).base();
  return std::string(begin, end);
}

Result<std::string> checked(std::string token, const std::string& origin) {
  if (token.empty()) return Status(StatusCode::invalid_argument, origin + " holds no token");
  if (std::any_of(token.begin(), token.end(), [](unsigned char c) { return std::isspace(c) || std::iscntrl(c); }))
    return Status(StatusCode::invalid_argument, origin + ": the token has whitespace or control characters inside");
  return token;
}

}  // namespace

Result<std::optional<BearerToken>> BearerToken::load(const std::string& token_file, const char* from_environment) {
  if (!token_file.empty()) {
    std::ifstream file(token_file);
    if (!file) return Status(StatusCode::not_found, "cannot read the token file '" + token_file + "'");
    std::stringstream text;
    text << file.rdbuf();
    struct stat info {};
    if (::stat(token_file.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)))
      spdlog::warn("serve: the token file '{}' can be read by other users (chmod 600 it)", token_file);
    auto token = checked(trimmed(text.str()), "the token file '" + token_file + "'");
    if (!token) return token.status();
    return std::optional<BearerToken>(BearerToken(std::move(*token)));
  }
  if (from_environment == nullptr) return std::optional<BearerToken>();
  auto token = checked(trimmed(from_environment), "TRITONGYM_SERVE_TOKEN");
  if (!token) return token.status();
  return std::optional<BearerToken>(BearerToken(std::move(*token)));
}

bool BearerToken::admits(std::string_view authorization) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() < kScheme.size()) return false;
  // The scheme is case-insensitive (RFC 9110); what follows it is the secret, compared byte by byte over the
  // whole of what was sent, whatever matches: no early exit.
  bool scheme = true;
  for (size_t i = 0; i < kScheme.size(); ++i)
    scheme &= std::tolower(static_cast<unsigned char>(authorization[i])) ==
              std::tolower(static_cast<unsigned char>(kScheme[i]));
  std::string_view given = authorization.substr(kScheme.size());
  unsigned char difference = given.size() == secret_.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i)
    difference |= static_cast<unsigned char>(given[i] ^ secret_[i % secret_.size()]);
  return scheme && difference == 0;
}

}  // namespace tritongym::serve
