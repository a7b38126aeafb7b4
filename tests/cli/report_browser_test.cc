// ckpt report's page in headless Chromium (Debian's chromium): every chart drew pixels, no
// script failed, the tables show --json's numbers; screenshots of a generated chain and of a
// flink-sql savepoint land in the build directory. A Chromium that cannot start fails the
// test: the page is the deliverable, and an untested page is not one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kChromium = "/usr/bin/chromium";

std::vector<std::string> chromium(const std::string& profile) {
  return {kChromium,         "--headless",         "--no-sandbox",
          "--disable-gpu",   "--disable-quic",     "--no-first-run",
          "--disable-background-networking",       "--disable-component-update",
          "--disable-sync",  "--user-data-dir=" + profile};
}

// Charts the page must draw for this report (ops/report/report_html.cc draws them).
size_t expected_charts(const json& r) {
  size_t n = 1;  // size per operator
  bool states = false;
  for (const json& op : r["operators"]) {
    if (!op["states"].empty()) states = true;
    if (!op["key_groups"].empty()) n += 2;  // bytes per key group, per subtask
  }
  if (states && r["skew_method"] == "counted") ++n;
  if (r["history"].size() > 1) n += 3;
  return n;
}

// The value of attribute `name` of the element whose `marker` attribute is there, or "".
std::string element_attribute(const std::string& dom, const std::string& marker, const std::string& name) {
  const size_t at = dom.find(marker);
  if (at == std::string::npos) return {};
  const size_t open = dom.rfind('<', at), close = dom.find('>', at);
  const std::string element = dom.substr(open, close - open);
  const size_t a = element.find(" " + name + "=\"");
  if (a == std::string::npos) return {};
  const size_t from = a + name.size() + 3;
  return element.substr(from, element.find('"', from) - from);
}

// The text a reader sees: the body without its scripts and tags (std::regex would recurse over
// the embedded data).
std::string visible_text(const std::string& dom) {
  std::string out;
  size_t i = dom.find("<body");
  while (i != std::string::npos && i < dom.size()) {
    if (dom.compare(i, 7, "<script") == 0) {
      i = dom.find("</script>", i);
      if (i != std::string::npos) i += 9;
    } else if (dom[i] == '<') {
      i = dom.find('>', i);
      if (i != std::string::npos) ++i;
      out += ' ';
    } else {
      out += dom[i++];
    }
  }
  return out;
}

// Opens `page` and checks it; saves a screenshot as `png`.
void check_page(const std::string& page, const json& r, const std::string& png) {
  ckpt::test::ScratchDir profile;
  std::vector<std::string> dom_args = chromium(profile.path());
  dom_args.push_back("--window-size=1024,800");
  dom_args.push_back("--dump-dom");
  dom_args.push_back("file://" + fs::absolute(page).string());
  ckpt::test::CliResult dom = ckpt::test::run_program(dom_args, 180);
  INFO("chromium: status " << dom.status << "\n" << dom.err.substr(0, 4000));
  REQUIRE(dom.status == 0);  // Chromium must start: a failure, never a skip
  REQUIRE(dom.out.find("<html") != std::string::npos);
  const size_t charts = expected_charts(r);
  CHECK(dom.out.find("data-state=\"ok\"") != std::string::npos);
  CHECK(dom.out.find("data-charts=\"" + std::to_string(charts) + "\"") != std::string::npos);
  CHECK(dom.out.find("data-empty=\"\"") != std::string::npos);
  // The checks are attributes, not text a reader sees.
  const std::string text = visible_text(dom.out);
  CHECK(text.find("ckpt-report:") == std::string::npos);
  CHECK(text.find("could not be drawn") == std::string::npos);
  CHECK(dom.out.find("<title>ckpt report: " + r["path"].get<std::string>() + "</title>") != std::string::npos);
  // Long serializer names wrap: the page is no wider than the window.
  const std::string page_width = element_attribute(dom.out, "id=\"status\"", "data-page-width");
  const std::string window_width = element_attribute(dom.out, "id=\"status\"", "data-window-width");
  REQUIRE_FALSE(page_width.empty());
  CHECK(std::stoi(page_width) <= std::stoi(window_width));
  // Sizes and counts over time start at 0.
  if (r["history"].size() > 1)
    for (const char* h : {"history-size", "history-files", "history-operators"}) {
      INFO(h);
      CHECK(element_attribute(dom.out, std::string("data-chart=\"") + h + "\"", "data-y-min") == "0");
    }
  // The operator table shows each operator's state_size and checkpointed_size as --json has them.
  for (const json& op : r["operators"]) {
    CHECK(dom.out.find("data-k=\"state_size\" data-v=\"" + std::to_string(op["state_size"].get<int64_t>()) + "\"") !=
          std::string::npos);
    CHECK(dom.out.find("data-k=\"checkpointed_size\" data-v=\"" +
                       std::to_string(op["checkpointed_size"].get<int64_t>()) + "\"") != std::string::npos);
    std::string hot;
    for (const json& kg : op["hot_key_groups"]) hot += (hot.empty() ? "" : ",") + std::to_string(kg.get<int>());
    if (op["key_groups"].empty()) continue;
    CHECK(dom.out.find("data-hot=\"" + hot + "\"") != std::string::npos);
    // Bytes per key group as bars from 0: the largest key group is the tallest bar drawn.
    const std::string skew = "data-chart=\"skew-key-groups-" + op["id"].get<std::string>() + "\"";
    CHECK(element_attribute(dom.out, skew, "data-type") == "bar");
    CHECK(element_attribute(dom.out, skew, "data-y-min") == "0");
    CHECK(element_attribute(dom.out, skew, "data-tallest") == std::to_string(op["largest_key_groups"][0].get<int>()));
  }
  ckpt::test::ScratchDir profile2;
  std::vector<std::string> shot = chromium(profile2.path());
  fs::remove(png);
  shot.push_back("--window-size=1400,3200");
  shot.push_back("--screenshot=" + png);
  shot.push_back("file://" + fs::absolute(page).string());
  ckpt::test::CliResult s = ckpt::test::run_program(shot, 180);
  INFO(s.err.substr(0, 2000));
  CHECK(s.status == 0);
  REQUIRE(fs::exists(png));
  CHECK(fs::file_size(png) > 20000);  // a page with charts, not a blank one
}

json report(const std::string& path, const std::string& page) {
  ckpt::test::CliResult r = ckpt::test::run_cli({"report", "-q", path, "--output", page, "--json", "--force"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("report's page renders every chart in headless Chromium for a generated chain", "[cli][browser]") {
  ckpt::test::ScratchDir s;
  const std::string chain = s / "chain";
  ckpt::test::run_cli_ok({"generate", "-q", "--output", chain, "--chain", "5", "--operators", "2", "--keys", "4000",
                          "--parallelism", "3", "--states", "value,list,map", "--hot-key-groups", "3,64"});
  const std::string page = s / "chain.html";
  json r = report(chain, page);
  CHECK(r["operators"][0]["hot_key_groups"] == json::array({3, 64}));
  const int largest = r["operators"][0]["largest_key_groups"][0].get<int>();
  CHECK((largest == 3 || largest == 64));
  check_page(page, r, ckpt::test::build_dir() + "/report-generated-chain.png");
}

TEST_CASE("report's page renders every chart in headless Chromium for a flink-sql savepoint", "[cli][browser][corpus]") {
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir s;
  // The group aggregate's savepoint: keyed state of a SQL job, as Flink wrote it.
  std::string chosen;
  for (const std::string& sp : ckpt::test::sql_corpus_snapshots())
    if (sp.find("stream-exec-group-aggregate_1") != std::string::npos) {
      chosen = sp;
      break;
    }
  REQUIRE_FALSE(chosen.empty());
  const std::string page = s / "sql.html";
  json r = report(chosen, page);
  CHECK(r["entry_count"].get<uint64_t>() > 0);
  check_page(page, r, ckpt::test::build_dir() + "/report-flink-sql-savepoint.png");
}
