#include "http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <memory>
#include <mutex>
#include <thread>

namespace tritongym::http {
namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  HttpResponse* response;
  const BodyChunkHandler* on_chunk;
  bool aborted_by_handler = false;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a status line: a new response (after a 100 or a redirect)
    transfer->response->headers.clear();
    size_t space = line.find(' ');
    if (space != std::string::npos) transfer->response->status = std::strtol(line.c_str() + space + 1, nullptr, 10);
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    transfer->response->headers[name] = value;
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view chunk(data, size * count);
  bool streaming = transfer->on_chunk && *transfer->on_chunk && transfer->response->status >= 200 &&
                   transfer->response->status < 300;
  if (streaming) {
    if (!(*transfer->on_chunk)(chunk)) {
      transfer->aborted_by_handler = true;
      return 0;  // makes curl abort
    }
  } else {
    transfer->response->body.append(chunk);
  }
  return size * count;
}

double parse_retry_after(const std::string& value) {
  try {
    size_t used = 0;
    double seconds = std::stod(value, &used);
    if (used == value.size()) return seconds;
  } catch (...) {
  }
  std::tm when{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S", &when)) {
    double seconds = std::difftime(timegm(&when), std::time(nullptr));
    return std::max(0.0, seconds);
  }
  return -1;
}

}  // namespace

Result<HttpResponse> perform(const HttpRequest& request, const BodyChunkHandler& on_chunk) {
  global_init_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Status(StatusCode::internal, "curl_easy_init failed");
  HttpResponse response;
  Transfer transfer{&response, &on_chunk};
  curl_slist* headers = nullptr;
  for (const auto& header : request.headers) headers = curl_slist_append(headers, header.c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip before the body
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers, curl_slist_free_all);

  CURL* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
  if (!request.body.empty()) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");

  CURLcode code = curl_easy_perform(handle);
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  if (status) response.status = status;
  if (code != CURLE_OK) {
    if (transfer.aborted_by_handler) return Status(StatusCode::cancelled, "the stream was abandoned by its reader");
    std::string what = curl_easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT)
      return Status(StatusCode::deadline_exceeded, "no complete answer from " + request.url + " within " +
                                                       std::to_string(request.timeout_s) + " s");
    return Status(StatusCode::unavailable, "the connection to " + request.url + " failed: " + what);
  }
  return response;
}

double RetryPolicy::delay_s(int attempt, const std::map<std::string, std::string>& headers, std::mt19937& random) const {
  for (const char* name : {"retry-after-ms", "retry-after"}) {
    auto found = headers.find(name);
    if (found == headers.end()) continue;
    double seconds = parse_retry_after(found->second);
    if (seconds >= 0) {
      if (std::string(name) == "retry-after-ms") seconds /= 1000.0;
      return std::min(seconds, max_retry_after_s);
    }
  }
  double backoff = std::min(max_delay_s, initial_delay_s * std::pow(2.0, attempt - 1));
  std::uniform_real_distribution<double> jitter(0.75, 1.0);
  return backoff * jitter(random);
}

Result<HttpResponse> perform_with_retries(const std::function<Result<HttpResponse>()>& attempt,
                                          const RetryPolicy& policy, AttemptLog& log,
                                          const std::function<void(double)>& sleep) {
  std::mt19937 random(std::random_device{}());
  Result<HttpResponse> last = Status(StatusCode::internal, "no attempt was made");
  for (int number = 1; number <= policy.max_retries + 1; ++number) {
    log.attempts = number;
    last = attempt();
    std::map<std::string, std::string> headers;
    if (last) {
      if (!RetryPolicy::retryable_status(last->status)) return last;
      log.failures.push_back("HTTP " + std::to_string(last->status));
      headers = last->headers;
    } else {
      StatusCode code = last.status().code();
      if (code != StatusCode::unavailable && code != StatusCode::deadline_exceeded) return last;
      log.failures.push_back(last.status().message());
    }
    if (number <= policy.max_retries) sleep(policy.delay_s(number, headers, random));
  }
  return last;
}

}  // namespace tritongym::http
