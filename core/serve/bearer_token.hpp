// The secret that guards a server's API (docs/serve.md, "Security"): read once from a file or the environment,
// compared in constant time, never printed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tritongym/sdk/status.hpp"

namespace tritongym::serve {

class BearerToken {
 public:
  // The token of `token_file` when one is named ("" for none), else of the environment's value `from_environment`
  // (TRITONGYM_SERVE_TOKEN; nullptr when unset); nullopt when neither gives one. Surrounding whitespace (a final
  // newline) is dropped. Errors name the file (unreadable, empty, or a token with whitespace inside), never the
  // token.
  static Result<std::optional<BearerToken>> load(const std::string& token_file, const char* from_environment);

  // Whether an `Authorization` header value is "Bearer <this token>". Takes the same time for every header of a
  // given length, whatever its bytes, so that timing tells an attacker nothing of the token.
  bool admits(std::string_view authorization) const;

 private:
  explicit BearerToken(std::string secret) : secret_(std::move(secret)) {}
  std::string secret_;
};

}  // namespace tritongym::serve
