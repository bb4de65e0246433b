// A DSL plugin whose rules and reference are Markdown files shipped beside its library:
// rules.md (shown to the model) and reference.md (served by the `docs` tool, one '## ' section per
// topic). The plugin supplies only its name, the frontend its kernels must come from and its static source check.
#pragma once

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tritongym/sdk/config.hpp"
#include "tritongym/sdk/context.hpp"
#include "tritongym/sdk/dsl.hpp"

namespace tritongym::dsls {

struct MarkdownDslConfig {
  int64_t max_docs_chars = 6000;  // cap on one `docs` answer
  int64_t max_sections = 3;       // sections per answer
  static constexpr auto fields() {
    return std::make_tuple(field("max_docs_chars", &MarkdownDslConfig::max_docs_chars),
                           field("max_sections", &MarkdownDslConfig::max_sections));
  }
};

struct ReferenceSection {
  std::string heading;
  std::string text;  // the whole section, heading included
};

inline std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// Splits Markdown at '## ' headings; text before the first heading becomes an "overview" section.
inline std::vector<ReferenceSection> split_sections(const std::string& markdown) {
  std::vector<ReferenceSection> sections;
  std::istringstream lines(markdown);
  std::string line;
  ReferenceSection current{"overview", ""};
  while (std::getline(lines, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (!current.text.empty()) sections.push_back(current);
      current = {line.substr(3), ""};
    }
    current.text += line + "\n";
  }
  if (!current.text.empty()) sections.push_back(current);
  return sections;
}

class MarkdownDsl final : public Dsl {
 public:
  using SourceCheck = std::function<Status(std::string_view)>;

  MarkdownDsl(std::string name, std::string kernel_frontend, std::string rules, std::vector<ReferenceSection> reference,
              MarkdownDslConfig config, SourceCheck check)
      : name_(std::move(name)), kernel_frontend_(std::move(kernel_frontend)), rules_(std::move(rules)),
        reference_(std::move(reference)), config_(config), check_(std::move(check)) {}

  std::string name() const noexcept override { return name_; }
  std::string required_kernel_frontend() const noexcept override { return kernel_frontend_; }
  std::string candidate_rules() const noexcept override { return rules_; }
  Status check_source(std::string_view source_code) const noexcept override {
    try {
      return check_(source_code);
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("source check failed: ") + error.what());
    }
  }

  // The sections sharing the most words with the query (headings count double), best first.
  Result<std::string> docs(std::string_view query) const noexcept override {
    try {
      std::vector<std::string> wanted = words_of(std::string(query));
      std::vector<std::pair<double, size_t>> scored;
      for (size_t i = 0; i < reference_.size(); ++i) {
        std::vector<std::string> body = words_of(reference_[i].text);
        std::vector<std::string> heading = words_of(reference_[i].heading);
        double score = 0;
        for (const auto& word : wanted) {
          score += 2.0 * static_cast<double>(std::count(heading.begin(), heading.end(), word));
          score += std::min<double>(3.0, static_cast<double>(std::count(body.begin(), body.end(), word)));
        }
        if (score > 0) scored.push_back({-score, i});
      }
      std::sort(scored.begin(), scored.end());
      if (scored.empty()) {
        std::string headings;
        for (const auto& section : reference_) headings += "\n- " + section.heading;
        return "No section of the " + name_ + " reference matches '" + std::string(query) + "'. Sections:" + headings;
      }
      std::string answer;
      for (size_t k = 0; k < scored.size() && k < static_cast<size_t>(config_.max_sections); ++k) {
        const std::string& text = reference_[scored[k].second].text;
        if (!answer.empty() && answer.size() + text.size() > static_cast<size_t>(config_.max_docs_chars)) break;
        answer += text + "\n";
      }
      if (answer.size() > static_cast<size_t>(config_.max_docs_chars))
        answer = answer.substr(0, static_cast<size_t>(config_.max_docs_chars)) + "\n... (cut)";
      return answer;
    } catch (const std::exception& error) {
      return Status(StatusCode::internal, std::string("docs: ") + error.what());
    }
  }

 private:
  std::string name_;
  std::string kernel_frontend_;
  std::string rules_;
  std::vector<ReferenceSection> reference_;
  MarkdownDslConfig config_;
  SourceCheck check_;
};

inline Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::not_found, "cannot read " + path + " (is the plugin installed with its data files?)");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Creates the DSL from <plugin_dir>/rules.md and <plugin_dir>/reference.md. `kernel_frontend`: what
// Dsl::required_kernel_frontend() answers ("" for no rule at run time).
inline Result<std::unique_ptr<Dsl>> create_markdown_dsl(const PluginContext& context, std::string name,
                                                       std::string kernel_frontend, MarkdownDsl::SourceCheck check) {
  auto config = parse_config<MarkdownDslConfig>(context.config_json);
  if (!config) return config.status();
  auto rules = read_text(context.plugin_dir + "/rules.md");
  if (!rules) return rules.status();
  auto reference = read_text(context.plugin_dir + "/reference.md");
  if (!reference) return reference.status();
  return std::unique_ptr<Dsl>(std::make_unique<MarkdownDsl>(std::move(name), std::move(kernel_frontend),
                                                            std::move(rules.value()),
                                                            split_sections(reference.value()), config.value(),
                                                            std::move(check)));
}

}  // namespace tritongym::dsls
