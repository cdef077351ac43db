// The JSON writer (core/detail/json.hpp): documents are always valid UTF-8 and well-formed;
// bytes that are not UTF-8 are replaced by U+FFFD and kept, as hex, in a "<key>_bytes" sibling;
// control characters are escaped. Plus the deterministic replay of the fuzz property
// (tests/fuzz/json_invariants.hpp; the libFuzzer target is tests/fuzz/json_fuzz.cpp).
#include <cuarch/core/detail/json.hpp>
#include <cuarch/core/detail/json_reader.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <string>

#include "fuzz/json_invariants.hpp"

using cuarch::detail::json_writer;
using cuarch_fuzz::is_valid_utf8;
using cuarch_fuzz::strict_json_reader;

namespace {

std::string member(std::string_view key, std::string_view value) {
  json_writer w;
  w.begin_object().key(key).value(value).end_object();
  return w.str();
}

// xorshift64*: a fixed sequence, so a failure reproduces exactly.
struct rng {
  std::uint64_t s = 0x2545F4914F6CDD1DULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};

}  // namespace

TEST_CASE("the test's own reader is strict", "[json]") {
  for (const char* good : {"{}", "[]", "{\"a\":[1,-0.5e3,true,false,null,\"\\u00e9\\ud83d\\ude00\"]}", " \"x\" "})
    CHECK(strict_json_reader::read(good));
  for (const char* bad :
       {"{\"a\":\"\xff\"}", "[1,]", "\"\\ud800\"", "\"\\udc00\"", "{\"a\" 1}", "{} x", "\"\x1b\"", "[01]", "\"\\x41\"",
        "\"caf\xc3\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\""})
    CHECK_FALSE(strict_json_reader::read(bad));
}

TEST_CASE("a path that is not UTF-8: replaced in the text, kept as hex beside it", "[json]") {
  const std::string doc = member("path", "/opt/\xff\xfe/cuda");
  CHECK(is_valid_utf8(doc));
  CHECK(doc == "{\"path\":\"/opt/\xef\xbf\xbd\xef\xbf\xbd/cuda\",\"path_bytes\":\"2f6f70742ffffe2f63756461\"}");
  CHECK(strict_json_reader::read(doc));
}

TEST_CASE("a string cut in the middle of a character", "[json]") {
  const std::string doc = member("raw", "caf\xc3");  // "café" cut after the first byte of 'é'
  CHECK(is_valid_utf8(doc));
  CHECK(doc == "{\"raw\":\"caf\xef\xbf\xbd\",\"raw_bytes\":\"636166c3\"}");
}

TEST_CASE("replacement follows Unicode's 'maximal subpart' practice (as Python and browsers do)", "[json]") {
  const std::string fffd = "\xef\xbf\xbd";
  json_writer w;
  w.begin_array()
      .value("\xe2\x82")  // the first two bytes of a 3-byte character: one U+FFFD
      .value(
          "\xf0\x9f\x98"
          "a")                    // three of four, then ASCII: one U+FFFD, then 'a'
      .value("\xed\xa0\x80")      // an encoded surrogate: three
      .value("\xc0\xaf")          // an overlong '/': two
      .value("\xf4\x90\x80\x80")  // above U+10FFFF: four
      .end_array();
  CHECK(w.str() == "[\"" + fffd + "\",\"" + fffd + "a\",\"" + fffd + fffd + fffd + "\",\"" + fffd + fffd + "\",\"" +
                       fffd + fffd + fffd + fffd + "\"]");
}

TEST_CASE("valid UTF-8 is written verbatim; control characters are escaped", "[json]") {
  CHECK(member("s", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") ==
        "{\"s\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}");
  CHECK(member("s", "\x1b[31mred\x7f") == "{\"s\":\"\\u001b[31mred\\u007f\"}");
  CHECK(member("s", "a\"b\\c\nd\te\r\b\f") == "{\"s\":\"a\\\"b\\\\c\\nd\\te\\r\\b\\f\"}");
  CHECK(member("s", std::string("nul\0here", 8)) == "{\"s\":\"nul\\u0000here\"}");
  // C1 controls and the JavaScript line separators are valid UTF-8 but unsafe in terminals and JS.
  CHECK(member("s",
               "\xc2\x9b"
               "x\xe2\x80\xa8") == "{\"s\":\"\\u009bx\\u2028\"}");
}

TEST_CASE("strings in an array: a parallel <key>_bytes array, null where nothing was lost", "[json]") {
  json_writer w;
  w.begin_object().key("list").begin_array().value("ok").value("\xff").value("a\xfe").end_array().key("n").value(1).end_object();
  CHECK(w.str() ==
        "{\"list\":[\"ok\",\"\xef\xbf\xbd\",\"a\xef\xbf\xbd\"],\"list_bytes\":[null,\"ff\",\"61fe\"],\"n\":1}");
}

TEST_CASE("a key that is not UTF-8 gets a <key>_key_bytes sibling after its value", "[json]") {
  json_writer w;
  w.begin_object().key("V\xff").begin_object().key("x").value(1).end_object().end_object();
  CHECK(w.str() == "{\"V\xef\xbf\xbd\":{\"x\":1},\"V\xef\xbf\xbd_key_bytes\":\"56ff\"}");
}

TEST_CASE("seed scripts keep the writer's invariants", "[json][fuzz]") {
  using namespace std::string_literals;
  for (const std::string& input : {""s, "\x00\x03key\x02\xff\xfe\x05"s, "\x04\x02k\xc3\x00\x01\xe2\x00\x02\x80\x80"s,
                                   "\x03\x01\xff\x03\x01\xfe\x00\x01\x1b\x05\x05"s}) {
    std::string doc;
    const char* violation = cuarch_fuzz::json_writer_violation(input, doc);
    INFO(doc);
    CHECK(violation == nullptr);
  }
}

TEST_CASE("100,000 generated scripts keep the writer's invariants", "[json][fuzz]") {
  static constexpr char alphabet[] =
      "\x00\x01\x02\x03\x04\x05\x1b\x7f\x80\xbf\xc0\xc2\xc3\xe0\xe2\xed\xef\xf0\xf4\xf5\xff\"\\/aZ \n";
  rng r;
  int failures = 0;
  for (int i = 0; i < 100000 && failures < 5; ++i) {
    std::string input;
    const auto len = r.next() % 48;
    for (std::uint64_t k = 0; k < len; ++k) input += alphabet[r.next() % (sizeof(alphabet) - 1)];
    std::string doc;
    if (const char* violation = cuarch_fuzz::json_writer_violation(input, doc)) {
      ++failures;
      INFO("script #" << i << ": " << violation << "\n" << doc);
      CHECK(violation == nullptr);
    }
  }
  CHECK(failures == 0);
}
