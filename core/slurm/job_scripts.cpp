#include "slurm/job_scripts.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "slurm/submission_record.hpp"

namespace tritongym::slurm {

namespace fs = std::filesystem;

namespace {

// The #SBATCH lines both scripts share: where they run and log, and the cluster's options.
void write_common_options(std::ostream& out, const JobScriptInputs& inputs, const std::string& log_name) {
  out << "#SBATCH --output=" << (fs::path(logs_folder(inputs.run_dir)) / log_name).string() << "\n"
      << "#SBATCH --open-mode=append\n"
      << "#SBATCH --chdir=" << inputs.working_dir << "\n";
  out << cluster_sbatch_lines(inputs.options);
}

void write_extra_options(std::ostream& out, const SlurmJobOptions& options) { out << extra_sbatch_lines(options); }

void write_variables(std::ostream& out, const JobScriptInputs& inputs) {
  out << "set -euo pipefail\n"
      << "tritongym=" << command_array(inputs.tritongym) << "\n"
      << "run_dir=" << shell_quote(inputs.run_dir) << "\n"
      << "shards=" << inputs.shard_count << "\n";
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string array_spec(std::vector<int64_t> indices) {
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::string spec;
  for (size_t i = 0; i < indices.size();) {
    size_t last = i;
    while (last + 1 < indices.size() && indices[last + 1] == indices[last] + 1) ++last;
    spec += (spec.empty() ? "" : ",") + std::to_string(indices[i]);
    if (last > i) spec += "-" + std::to_string(indices[last]);
    i = last + 1;
  }
  return spec;
}

Status check_sbatch_value(const std::string& value, const std::string& what) {
  if (value.find_first_of(" \t\n\r'\"%\\") != std::string::npos)
    return Status(StatusCode::invalid_argument,
                  what + " '" + value + "' cannot be written on an #SBATCH line (no whitespace, quotes, '%' or "
                         "backslash); choose one without them");
  return {};
}

Result<int64_t> parse_time_limit_seconds(const std::string& text) {
  auto refuse = [&] {
    return Status(StatusCode::invalid_argument,
                  "--time '" + text + "' is not a Slurm time limit (minutes, h:mm:ss, days-h, days-h:mm:ss, ...)");
  };
  if (text.empty() || text.find_first_not_of("0123456789:-") != std::string::npos || text.back() == ':' ||
      text.back() == '-' || text.find("::") != std::string::npos)
    return refuse();
  int64_t days = 0;
  std::string rest = text;
  if (size_t dash = text.find('-'); dash != std::string::npos) {
    if (dash == 0 || dash > 6) return refuse();
    days = std::stoll(text.substr(0, dash));
    rest = text.substr(dash + 1);
  }
  std::vector<int64_t> parts;
  std::istringstream in(rest);
  for (std::string part; std::getline(in, part, ':');) {
    if (part.empty() || part.size() > 6 || part.find('-') != std::string::npos) return refuse();
    parts.push_back(std::stoll(part));
  }
  if (parts.empty() || parts.size() > 3) return refuse();
  bool with_days = text.find('-') != std::string::npos;
  int64_t seconds = 0;
  if (with_days) {  // days-hours[:minutes[:seconds]]
    const int64_t units[] = {3600, 60, 1};
    for (size_t i = 0; i < parts.size(); ++i) seconds += parts[i] * units[i];
  } else if (parts.size() == 1) {  // minutes
    seconds = parts[0] * 60;
  } else if (parts.size() == 2) {  // minutes:seconds
    seconds = parts[0] * 60 + parts[1];
  } else {  // hours:minutes:seconds
    seconds = parts[0] * 3600 + parts[1] * 60 + parts[2];
  }
  return days * 86400 + seconds;
}

Result<std::vector<std::string>> parse_extra_sbatch(const std::vector<std::string>& texts) {
  std::vector<std::string> options;
  for (const auto& text : texts) {
    std::istringstream words(text);
    for (std::string word; words >> word;) {
      if (word.front() != '-')
        return Status(StatusCode::invalid_argument,
                      "--extra-sbatch: '" + word + "' is not an sbatch option (write them whole: '--qos=high --mem=32G')");
      if (word.find_first_of("'\"") != std::string::npos)
        return Status(StatusCode::invalid_argument,
                      "--extra-sbatch: '" + word + "' holds a quote; #SBATCH lines take none");
      options.push_back(word);
    }
  }
  return options;
}

std::string cluster_sbatch_lines(const SlurmJobOptions& options) {
  std::string lines;
  if (!options.partition.empty()) lines += "#SBATCH --partition=" + options.partition + "\n";
  if (!options.account.empty()) lines += "#SBATCH --account=" + options.account + "\n";
  if (!options.time_limit.empty()) lines += "#SBATCH --time=" + options.time_limit + "\n";
  return lines;
}

std::string extra_sbatch_lines(const SlurmJobOptions& options) {
  std::string lines;
  for (const auto& extra : options.extra_sbatch) lines += "#SBATCH " + extra + "\n";
  return lines;
}

std::string command_array(const std::vector<std::string>& words) {
  std::string out = "(";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? " " : "") + shell_quote(words[i]);
  return out + ")";
}

std::string logs_folder(const std::string& run_dir) { return (fs::path(slurm_folder(run_dir)) / "logs").string(); }

std::string shard_array_script(const JobScriptInputs& inputs) {
  std::ostringstream out;
  std::string run_file = (fs::path(slurm_folder(inputs.run_dir)) / kRunFile).string();
  out << "#!/bin/bash\n"
      << "# The shards of TritonGym run '" << inputs.run_name << "', one Slurm array task each (written by `tritongym slurm`\n"
      << "# at " << inputs.written_at << " from " << inputs.source << ").\n"
      << "# Task I runs the episodes i with i % " << inputs.shard_count << " == I into " << inputs.run_dir << "/shard-I-of-"
      << inputs.shard_count << ", or resumes that shard\n"
      << "# when an earlier attempt (preempted, out of time, cancelled) left its store there: nothing recorded runs twice.\n"
      << "# `tritongym slurm resume " << inputs.run_dir << "` submits again the shards that are not complete\n"
      << "# (sbatch --array=LIST this file).\n"
      << "#SBATCH --job-name=tritongym-" << inputs.run_name << "\n"
      << "#SBATCH --array=" << array_spec([&] {
           std::vector<int64_t> all;
           for (int64_t i = 0; i < inputs.shard_count; ++i) all.push_back(i);
           return all;
         }()) << "\n";
  write_common_options(out, inputs, "shard-%a.log");
  // A preempted task comes back (where the cluster requeues), and resumes its store.
  out << "#SBATCH --requeue\n";
  if (inputs.options.gpus_per_shard > 0) out << "#SBATCH --gres=gpu:" << inputs.options.gpus_per_shard << "\n";
  if (!inputs.options.time_limit.empty() && inputs.options.stop_seconds_before_limit > 0)
    out << "#SBATCH --signal=B:TERM@" << inputs.options.stop_seconds_before_limit << "\n";
  write_extra_options(out, inputs.options);
  write_variables(out, inputs);
  out << "index=${SLURM_ARRAY_TASK_ID:?this script is a Slurm job array: submit it with sbatch --array=0-"
      << inputs.shard_count - 1 << "}\n"
      << "shard_dir=\"$run_dir/shard-$index-of-$shards\"\n"
      << "echo \"== shard $index/$shards of run '" << inputs.run_name
      << "': job ${SLURM_JOB_ID:-?} (${SLURM_ARRAY_JOB_ID:-?}_$index) on $(hostname), \"\\\n"
      << "     \"attempt $((${SLURM_RESTART_COUNT:-0} + 1)), $(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
      << "# exec: tritongym is the job's main process, so a signal for the batch script (--signal=B:...) reaches it;\n"
      << "# on SIGTERM it starts no new episode and records the running ones.\n"
      << "if [[ -e $shard_dir/run.sqlite ]]; then\n"
      << "  exec \"${tritongym[@]}\" resume \"$shard_dir\"\n"
      << "fi\n"
      << "exec \"${tritongym[@]}\" run " << shell_quote(run_file) << " --shard \"$index/$shards\"\n";
  return out.str();
}

std::string merge_script(const JobScriptInputs& inputs) {
  std::ostringstream out;
  out << "#!/bin/bash\n"
      << "# Merges the shards of TritonGym run '" << inputs.run_name << "' (written by `tritongym slurm` at "
      << inputs.written_at << ").\n"
      << "# Submitted to run after the shards' array ends, whatever their end (afterany): the merged store holds\n"
      << "# what the shards recorded, and says `interrupted` while any shard is missing or unfinished.\n"
      << "# " << inputs.run_dir << "/merged is made anew each time from the shard stores, which stay the record.\n"
      << "#SBATCH --job-name=tritongym-" << inputs.run_name << "-merge\n";
  write_common_options(out, inputs, "merge.log");
  write_extra_options(out, inputs.options);
  write_variables(out, inputs);
  out << "echo \"== merge of run '" << inputs.run_name
      << "': job ${SLURM_JOB_ID:-?} on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
      << "stores=()\n"
      << "for ((index = 0; index < shards; index++)); do\n"
      << "  shard_dir=\"$run_dir/shard-$index-of-$shards\"\n"
      << "  if [[ -e $shard_dir/run.sqlite ]]; then stores+=(\"$shard_dir\"); fi\n"
      << "done\n"
      << "if ((${#stores[@]} == 0)); then\n"
      << "  echo \"no shard of $run_dir has a store yet: nothing to merge\" >&2\n"
      << "  exec \"${tritongym[@]}\" slurm status \"$run_dir\"\n"
      << "fi\n"
      << "rm -rf \"$run_dir/merged.next\"\n"
      << "\"${tritongym[@]}\" merge \"${stores[@]}\" --into \"$run_dir/merged.next\"\n"
      << "rm -rf \"$run_dir/merged\"\n"
      << "mv \"$run_dir/merged.next\" \"$run_dir/merged\"\n"
      << "\"${tritongym[@]}\" report \"$run_dir/merged\" --html \"$run_dir/merged/report.html\" \\\n"
      << "  --trajectories \"$run_dir/merged/trajectories.jsonl\"\n"
      << "# Exit 0 only when every shard is complete and merged: a partial merge shows as a failed job.\n"
      << "exec \"${tritongym[@]}\" slurm status \"$run_dir\"\n";
  return out.str();
}

}  // namespace tritongym::slurm
