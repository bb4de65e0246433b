// The worker protocol's schema (plugins/executors/worker/tritongym_worker/protocol.json, embedded at build time):
// every request the executor sends its Python workers and every reply they send back. The worker checks the same
// messages against the same file (protocol.py), so the two sides cannot drift apart; docs/worker-protocol.md
// describes the messages.
#pragma once

#include <boost/json.hpp>

#include <string>
#include <string_view>

#include "tritongym/sdk/status.hpp"

namespace tritongym::triton_executor::protocol {

// The message type of a request: "<op>.request" ("request" when it has no string `op`).
std::string request_type(const boost::json::object& request);

// The message type of the reply to a request of `op`: "error.reply" (ok: false), or "<op>.reply".
std::string reply_type(std::string_view op, const boost::json::object& reply);

// OK if `message` is a `message_type` as protocol.json describes it. Otherwise internal, with a message that
// names the type and the field's path: "run.reply: unknown field 'cases[0].score'", "hello.reply: missing field
// 'pid'", "compare.reply: field 'cases[0].passed' is a string, expected boolean". Thread-safe.
Status check(std::string_view message_type, const boost::json::value& message);

// The schema's text, as the build embedded it.
std::string_view schema_text();

}  // namespace tritongym::triton_executor::protocol
