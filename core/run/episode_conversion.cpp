#include "run/episode_conversion.hpp"

#include "tritongym/sdk/prompts.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <ctime>

namespace tritongym::run {

using results::TranscriptEntry;

namespace {

std::string record_verdict(const std::string& record_json) {
  boost::system::error_code error;
  boost::json::value record = boost::json::parse(record_json, error);
  if (error || !record.is_object()) return {};
  const auto* verdict = record.as_object().if_contains("verdict");
  return verdict && verdict->is_string() ? std::string(verdict->as_string()) : std::string();
}

std::vector<TranscriptEntry> transcript_of(const episode::EpisodeResult& result) {
  std::vector<TranscriptEntry> entries;
  for (const auto& event : result.transcript) {
    TranscriptEntry entry;
    entry.index = static_cast<int64_t>(entries.size());
    switch (event.kind) {
      case episode::EpisodeEvent::Kind::turn:
        entry.kind = "assistant";
        entry.content = event.response.message.content;
        entry.input_tokens = event.response.usage.input_tokens;
        entry.output_tokens = event.response.usage.output_tokens;
        entry.dollars = event.response.cost_usd;
        {
          // The calls the model asked for, so the assistant entry alone shows the whole turn.
          boost::json::array calls;
          for (const auto& call : event.response.message.tool_calls)
            calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments_json}});
          entry.record_json = boost::json::serialize(boost::json::object{
              {"tool_calls", calls}, {"finish_reason", event.response.finish_reason}, {"model", event.response.model}});
        }
        break;
      case episode::EpisodeEvent::Kind::tool_call:
        entry.kind = "tool";
        entry.tool_name = event.call.name;
        entry.arguments_json = event.call.arguments_json;
        entry.code = code_argument_of(event.call.arguments_json);
        entry.ok = event.result.ok;
        entry.content = event.note.empty() ? event.result.text : event.note;
        entry.record_json = event.result.record_json.empty() ? "{}" : event.result.record_json;
        entry.verdict = record_verdict(entry.record_json);
        break;
      case episode::EpisodeEvent::Kind::prompt:
        entry.kind = role_name(event.message.role);
        entry.content = event.message.content;
        break;
      case episode::EpisodeEvent::Kind::refused:
        entry.kind = "refused";
        entry.tool_name = event.call.name;
        entry.arguments_json = event.call.arguments_json;
        entry.code = code_argument_of(event.call.arguments_json);
        entry.ok = false;
        entry.content = event.note;
        break;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace

bool is_evaluation_tool(const std::string& name) {
  return name == "compile" || name == "test" || name == "benchmark" || name == "profile" || name == "submit";
}

ConvertedEpisode convert_episode(const results::EpisodeKey& key, const TaskSpec& task,
                                 const episode::EpisodeResult& result, const std::string& started_at,
                                 const std::string& finished_at, double wall_seconds) {
  ConvertedEpisode converted;
  results::EpisodeRecord& record = converted.record;
  record.key = key;
  record.split = task.split;
  record.category = task.category;
  record.final_code = result.final_code;
  record.final_code_source = result.final_code_source;
  if (result.score) {
    const EvaluationResult& score = *result.score;
    record.verdict = verdict_name(score.verdict);
    record.message = score.message;
    record.flags = score.flags;
    record.warnings = score.warnings;
    for (const auto& outcome : score.shapes) {
      results::ShapeRecord shape;
      shape.shape = outcome.shape;
      shape.passed = outcome.passed;
      shape.max_abs_error = outcome.max_abs_error;
      if (outcome.timing) {
        shape.candidate_us = outcome.timing->median_us;
        shape.eager_us = outcome.timing->eager_us;
        shape.compile_us = outcome.timing->compile_us;
        shape.oracle_us = outcome.timing->oracle_us;
        shape.triton_us = outcome.timing->triton_us;
        shape.speed_of_light_us = outcome.timing->speed_of_light_us;
      }
      record.shapes.push_back(std::move(shape));
    }
    store::EvaluationRow row;
    row.stage = stage_name(EvaluationStage::final_score);
    row.verdict = record.verdict;
    row.message = score.message;
    row.stdout_text = score.stdout_text;
    row.stderr_text = score.stderr_text;
    row.record_json = score.record_json.empty() ? "{}" : score.record_json;
    row.flags = score.flags;
    row.warnings = score.warnings;
    row.gpu_seconds = score.gpu_seconds;
    row.wall_seconds = score.wall_seconds;
    converted.evaluations.push_back(std::move(row));
  } else if (result.final_code.empty()) {
    record.verdict = "no_code";
    record.message = result.workflow_status.is_ok()
                         ? "the model never wrote a candidate" +
                               (result.outcome.summary.empty() ? std::string() : " (" + result.outcome.summary + ")")
                         : "the workflow stopped: " + result.workflow_status.to_string();
  } else {
    record.verdict = "harness_error";
    record.message = "the final candidate could not be scored: " + result.score_status.to_string();
  }
  if (!result.workflow_status.is_ok() && result.score)
    record.message += " (the workflow stopped: " + result.workflow_status.to_string() + ")";

  converted.transcript = transcript_of(result);
  for (const auto& entry : converted.transcript) {
    if (entry.kind != "tool" || !is_evaluation_tool(entry.tool_name)) continue;
    ++record.attempts;
    if (record.first_passing_attempt == 0 && entry.ok && (entry.tool_name == "test" || entry.tool_name == "submit"))
      record.first_passing_attempt = record.attempts;
  }
  record.turns = result.usage.turns;
  record.tool_calls = result.usage.tool_calls;
  record.input_tokens = result.usage.input_tokens;
  record.output_tokens = result.usage.output_tokens;
  record.dollars = result.usage.dollars;
  record.gpu_seconds = result.usage.gpu_seconds + (result.score ? result.score->gpu_seconds : 0.0);
  record.wall_seconds = wall_seconds;
  record.started_at = started_at;
  record.finished_at = finished_at;
  return converted;
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace tritongym::run
