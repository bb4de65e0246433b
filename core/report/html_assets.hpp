// The HTML report's stylesheet and script, inlined into the page: the file must open without network.
#pragma once

namespace tritongym::report {

const char* report_stylesheet();
// Sorting (click a header; numbers sort numerically, n/a last), split tabs, the #episode/<n> router,
// and the #selftest check that tests/integration/html_report_chromium_test.cpp reads back.
const char* report_script();

}  // namespace tritongym::report
