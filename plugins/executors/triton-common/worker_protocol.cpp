#include "worker_protocol.hpp"

#include <map>
#include <utility>
#include <vector>

namespace tritongym::triton_executor::protocol {
namespace {

constexpr std::string_view kSchema =
#include "worker_protocol_schema.inc"
    ;

struct Field {
  std::string type;
  bool required = true;
};
// In the schema's order, so that the first missing field named is the one the worker names too.
using Fields = std::vector<std::pair<std::string, Field>>;

const Field* find(const Fields& fields, std::string_view name) {
  for (const auto& [key, field] : fields)
    if (key == name) return &field;
  return nullptr;
}

struct Schema {
  std::map<std::string, Fields, std::less<>> messages;
  std::map<std::string, Fields, std::less<>> records;
};

Fields fields_of(const boost::json::object& spec) {
  Fields out;
  for (const auto& entry : spec) {
    std::string key(entry.key());
    const auto& type = entry.value();
    const bool optional = !key.empty() && key.back() == '?';
    if (optional) key.pop_back();
    out.emplace_back(key, Field{std::string(type.as_string()), !optional});
  }
  return out;
}

// Parsed once; the embedded text is the repository's own file, so a malformed one fails every test at once.
const Schema& schema() {
  static const Schema parsed = [] {
    Schema out;
    const boost::json::object document = boost::json::parse(kSchema).as_object();
    for (const auto& entry : document.at("records").as_object())
      out.records[std::string(entry.key())] = fields_of(entry.value().as_object());
    Fields every_reply;
    if (const auto* extra = document.if_contains("every_reply")) every_reply = fields_of(extra->as_object());
    for (const auto& entry : document.at("messages").as_object()) {
      Fields declared = fields_of(entry.value().as_object());
      const std::string type(entry.key());
      const bool request = type.size() >= 8 && type.compare(type.size() - 8, 8, ".request") == 0;
      if (!request)
        for (const auto& extra : every_reply)
          if (!find(declared, extra.first)) declared.push_back(extra);
      out.messages[type] = std::move(declared);
    }
    return out;
  }();
  return parsed;
}

const char* kind_of(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "an integer";
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "a list";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

class Checker {
 public:
  Checker(const Schema& schema, std::string_view message_type) : schema_(schema), type_(message_type) {}

  Status fields(const Fields& declared, const boost::json::object& value, const std::string& path) const {
    for (const auto& entry : value)
      if (!find(declared, std::string_view(entry.key())))
        return fail("unknown field '" + path + std::string(entry.key()) + "'");
    for (const auto& [key, field] : declared) {
      if (const auto* found = value.if_contains(key)) {
        if (Status status = check(field.type, *found, path + key); !status.is_ok()) return status;
      } else if (field.required) {
        return fail("missing field '" + path + key + "'");
      }
    }
    return {};
  }

 private:
  Status check(std::string_view type, const boost::json::value& value, const std::string& path) const {
    if (ends_with(type, "|null")) {
      if (value.is_null()) return {};
      type.remove_suffix(5);
    }
    bool fits = true;
    if (type == "any") return {};
    if (type == "string") {
      fits = value.is_string();
    } else if (type == "integer") {
      fits = value.is_int64() || value.is_uint64();
    } else if (type == "number") {  // null: a float that was not finite (safe_json.py)
      fits = value.is_null() || value.is_number();
    } else if (type == "boolean") {
      fits = value.is_bool();
    } else if (type == "object") {
      fits = value.is_object();
    } else if (starts_with(type, "list<")) {
      fits = value.is_array();
      const std::string_view item_type = type.substr(5, type.size() - 6);
      if (fits) {
        size_t index = 0;
        for (const auto& item : value.as_array())
          if (Status status = check(item_type, item, path + "[" + std::to_string(index++) + "]"); !status.is_ok())
            return status;
      }
    } else if (starts_with(type, "map<")) {
      fits = value.is_object();
      const std::string_view item_type = type.substr(4, type.size() - 5);
      if (fits)
        for (const auto& entry : value.as_object())
          if (Status status = check(item_type, entry.value(), path + "." + std::string(entry.key())); !status.is_ok())
            return status;
    } else if (auto record = schema_.records.find(type); record != schema_.records.end()) {
      fits = value.is_object();
      if (fits) return fields(record->second, value.as_object(), path + ".");
    } else {
      return fail("field '" + path + "' has the type '" + std::string(type) + "', which protocol.json does not define");
    }
    if (!fits) return fail("field '" + path + "' is " + kind_of(value) + ", expected " + std::string(type));
    return {};
  }
  Status fail(const std::string& what) const { return Status(StatusCode::internal, std::string(type_) + ": " + what); }

  const Schema& schema_;
  std::string_view type_;
};

}  // namespace

std::string request_type(const boost::json::object& request) {
  const auto* op = request.if_contains("op");
  return op && op->is_string() ? std::string(op->as_string()) + ".request" : std::string("request");
}

std::string reply_type(std::string_view op, const boost::json::object& reply) {
  if (const auto* ok = reply.if_contains("ok"); ok && ok->is_bool() && !ok->as_bool()) return "error.reply";
  return std::string(op) + ".reply";
}

Status check(std::string_view message_type, const boost::json::value& message) {
  const Schema& parsed = schema();
  auto declared = parsed.messages.find(message_type);
  if (declared == parsed.messages.end())
    return Status(StatusCode::internal, "the worker protocol has no message '" + std::string(message_type) + "'");
  if (!message.is_object())
    return Status(StatusCode::internal, std::string(message_type) + ": expected an object, got " + kind_of(message));
  return Checker(parsed, message_type).fields(declared->second, message.as_object(), "");
}

std::string_view schema_text() { return kSchema; }

}  // namespace tritongym::triton_executor::protocol
