#include "slurm/slurm_commands.hpp"

#include <pwd.h>
#include <unistd.h>

#include <sstream>

#include "tritongym/support/subprocess.hpp"

namespace tritongym::slurm {

namespace {

constexpr double kCommandSeconds = 120.0;  // slurmctld answers in well under a second; a busy one may not

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? text : line;
}

std::string current_user() {
  if (const passwd* entry = ::getpwuid(::geteuid()); entry && entry->pw_name) return entry->pw_name;
  return std::to_string(::geteuid());
}

// Runs a Slurm command; a failure names the command line and what the command said.
Result<std::string> run_slurm(const std::vector<std::string>& argv) {
  process::ProcessOptions options;
  options.argv = argv;
  options.timeout_s = kCommandSeconds;
  auto ran = process::run_process(options);
  if (!ran) return ran.status();
  if (!ran->succeeded()) {
    std::string said = ran->stderr_text.empty() ? ran->stdout_text : ran->stderr_text;
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    return Status(StatusCode::unavailable,
                  "`" + joined(argv, " ") + "` failed (" + ran->describe_end() + ")" + (said.empty() ? "" : ": " + said));
  }
  return ran->stdout_text;
}

}  // namespace

Result<SlurmCommands> SlurmCommands::locate(SlurmUse use) {
  SlurmCommands commands;
  std::vector<std::pair<std::string, std::string*>> needed = {{"squeue", &commands.squeue_}};
  if (use == SlurmUse::submit || use == SlurmUse::resume) needed.push_back({"sbatch", &commands.sbatch_});
  if (use == SlurmUse::resume || use == SlurmUse::cancel) needed.push_back({"scancel", &commands.scancel_});
  std::vector<std::string> missing;
  for (auto& [name, path] : needed) {
    *path = process::find_executable(name);
    if (path->empty()) missing.push_back(name);
  }
  commands.sacct_ = process::find_executable("sacct");  // optional everywhere
  if (!missing.empty())
    return Status(StatusCode::unavailable,
                  "Slurm's " + joined(missing, ", ") + (missing.size() > 1 ? " are" : " is") +
                      " not on PATH: `tritongym slurm` works through Slurm's own commands; run it where Slurm's "
                      "client commands are installed (a cluster's login node), or add their folder to PATH "
                      "(`--dry-run` writes nothing and needs none of them)");
  return commands;
}

Result<std::string> SlurmCommands::submit(const std::vector<std::string>& arguments, const std::string& script) const {
  std::vector<std::string> argv = {sbatch_, "--parsable"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  argv.push_back(script);
  auto printed = run_slurm(argv);
  if (!printed) return printed.status();
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  std::string id = first_line(printed.value());
  id = id.substr(0, id.find(';'));
  while (!id.empty() && (id.back() == '\r' || id.back() == ' ')) id.pop_back();
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    return Status(StatusCode::unavailable, "sbatch printed no job id for " + script + ": '" + printed.value() + "'");
  return id;
}

Status SlurmCommands::cancel(const std::vector<std::string>& job_ids) const {
  if (job_ids.empty()) return {};
  std::vector<std::string> argv = {scancel_};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  auto done = run_slurm(argv);
  return done ? Status() : done.status();
}

Result<std::vector<std::string>> SlurmCommands::queue_lines(bool finished_too) const {
  // By user rather than by job id: squeue refuses the whole query when one id is no longer known.
  std::vector<std::string> argv = {squeue_, "--noheader", "--array", "--user", current_user(), "--format", "%i|%F|%K|%T|%r"};
  if (finished_too) argv.insert(argv.begin() + 3, {"--states", "all"});
  auto printed = run_slurm(argv);
  if (!printed) return printed.status();
  return lines_of(printed.value());
}

Result<std::vector<std::string>> SlurmCommands::accounting_lines(const std::vector<std::string>& job_ids) const {
  if (sacct_.empty()) return Status(StatusCode::unavailable, "sacct is not on PATH");
  if (job_ids.empty()) return std::vector<std::string>{};
  auto printed = run_slurm({sacct_, "--noheader", "--parsable2", "--allocations", "--jobs", joined(job_ids, ","),
                            "--format", "JobID,State,ExitCode"});
  if (!printed) return printed.status();
  return lines_of(printed.value());
}

}  // namespace tritongym::slurm
