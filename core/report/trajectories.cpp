#include "report/trajectories.hpp"

#include <boost/json.hpp>

namespace tritongym::report {

namespace {

boost::json::value optional(const std::optional<double>& value) {
  return value ? boost::json::value(*value) : boost::json::value(nullptr);
}

boost::json::value parsed_or_text(const std::string& text) {
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(text, error);
  return error ? boost::json::value(text) : value;
}

}  // namespace

std::string trajectory_line(const results::EpisodeRecord& episode, const std::vector<results::TranscriptEntry>& transcript) {
  boost::json::array shapes;
  for (const auto& shape : episode.shapes)
    shapes.push_back({{"shape", shape.shape}, {"passed", shape.passed}, {"max_abs_error", shape.max_abs_error},
                      {"candidate_us", optional(shape.candidate_us)}, {"eager_us", optional(shape.eager_us)},
                      {"compile_us", optional(shape.compile_us)}, {"oracle_us", optional(shape.oracle_us)},
                      {"triton_us", optional(shape.triton_us)}, {"speed_of_light_us", optional(shape.speed_of_light_us)}});
  boost::json::array steps;
  for (const auto& entry : transcript) {
    boost::json::object step{{"index", entry.index}, {"kind", entry.kind}, {"content", entry.content}};
    if (!entry.tool_name.empty()) {
      step["tool"] = entry.tool_name;
      step["arguments"] = parsed_or_text(entry.arguments_json);
      step["ok"] = entry.ok;
      if (!entry.verdict.empty()) step["verdict"] = entry.verdict;
      if (!entry.code.empty()) step["code"] = entry.code;
    }
    if (entry.kind == "assistant") {
      step["input_tokens"] = entry.input_tokens;
      step["output_tokens"] = entry.output_tokens;
      step["dollars"] = entry.dollars;
    }
    steps.push_back(std::move(step));
  }
  boost::json::object line{
      {"episode", episode.key.key()},     {"task", episode.key.task_id},        {"model", episode.key.model},
      {"workflow", episode.key.workflow}, {"sample", episode.key.sample},       {"split", episode.split},
      {"category", episode.category},     {"verdict", episode.verdict},         {"message", episode.message},
      {"flags", boost::json::value_from(episode.flags)},                        {"final_code", episode.final_code},
      {"final_code_source", episode.final_code_source},                         {"shapes", shapes},
      {"attempts", episode.attempts},     {"first_passing_attempt", episode.first_passing_attempt},
      {"turns", episode.turns},           {"tool_calls", episode.tool_calls},   {"input_tokens", episode.input_tokens},
      {"output_tokens", episode.output_tokens}, {"dollars", episode.dollars},   {"gpu_seconds", episode.gpu_seconds},
      {"wall_seconds", episode.wall_seconds},   {"started_at", episode.started_at}, {"finished_at", episode.finished_at},
      {"transcript", steps}};
  return boost::json::serialize(line);
}

}  // namespace tritongym::report
