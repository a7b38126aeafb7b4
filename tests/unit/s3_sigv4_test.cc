// The SigV4 signer against AWS's published Signature Version 4 test suite, as awslabs/aws-c-auth
// carries it (tests/aws-signing-test-suite/v4/<name>/header-canonical-request.txt,
// header-string-to-sign.txt, header-signed-request.txt), and on S3 keys holding the characters
// curl's signer gets wrong ('=', '+', spaces; curl issues #13754, #20543, #11794).
#include <catch2/catch.hpp>

#include <string>

#include "s3/crypto.h"
#include "s3/sigv4.h"

using namespace ckpt::s3;

namespace {

const Credentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", "test"};
const char* const kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SignRequest suite_request(std::string method, std::string path, Pairs query = {}, Pairs headers = {}) {
  SignRequest r;
  r.method = std::move(method);
  r.host = "example.amazonaws.com";
  r.path = std::move(path);
  r.query = std::move(query);
  r.headers = std::move(headers);
  r.payload_hash = kEmpty;
  r.amz_date = "20150830T123600Z";
  r.region = "us-east-1";
  r.service = "service";
  r.content_sha256_header = false;  // the suite's requests carry none
  return r;
}

std::string authz(const std::string& signed_headers, const std::string& signature) {
  return "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=" +
         signed_headers + ", Signature=" + signature;
}

}  // namespace

TEST_CASE("sigv4 get-vanilla gives the suite's canonical request string to sign and signature", "[s3][sigv4]") {
  Signed s = sign_v4(suite_request("GET", "/"), kSuite);
  CHECK(s.canonical_request ==
        "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + std::string(kEmpty));
  CHECK(s.string_to_sign ==
        "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
        "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  CHECK(s.authorization ==
        authz("host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
}

TEST_CASE("sigv4 get-vanilla-query-order-key-case sorts the query by name", "[s3][sigv4]") {
  Signed s = sign_v4(suite_request("GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}), kSuite);
  CHECK(s.canonical_request.find("\nParam1=value1&Param2=value2\n") != std::string::npos);
  CHECK(s.signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST_CASE("sigv4 get-vanilla-query-order-encoded sorts by the encoded name", "[s3][sigv4]") {
  Signed s = sign_v4(
      suite_request("GET", "/", {{"Param-3", "Value3"}, {"Param", "Value2"}, {"\xE1\x88\xB4", "Value1"}}), kSuite);
  CHECK(s.canonical_request.find("\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\n") != std::string::npos);
  CHECK(s.signature == "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac");
}

TEST_CASE("sigv4 get-utf8 and get-space-unnormalized percent-encode the path once", "[s3][sigv4]") {
  Signed utf8 = sign_v4(suite_request("GET", "/\xE1\x88\xB4"), kSuite);
  CHECK(utf8.canonical_request.rfind("GET\n/%E1%88%B4\n", 0) == 0);
  CHECK(utf8.signature == "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85");
  Signed space = sign_v4(suite_request("GET", "/example space/"), kSuite);
  CHECK(space.canonical_request.rfind("GET\n/example%20space/\n", 0) == 0);
  CHECK(space.signature == "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741");
  // S3 signs the path as it stands: "//" and ".." are not normalized away.
  CHECK(sign_v4(suite_request("GET", "//example//"), kSuite).signature ==
        "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5");
  CHECK(sign_v4(suite_request("GET", "/example/.."), kSuite).signature ==
        "eca7ead57bb5aa5c8e28007acd4ff04e1ff9a0ff3b237ec1554a184887ff9282");
}

TEST_CASE("sigv4 get-unreserved and get-vanilla-query-unreserved keep the unreserved set", "[s3][sigv4]") {
  const std::string unreserved = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  CHECK(sign_v4(suite_request("GET", "/" + unreserved), kSuite).signature ==
        "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
  CHECK(sign_v4(suite_request("GET", "/", {{unreserved, unreserved}}), kSuite).signature ==
        "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197");
}

TEST_CASE("sigv4 header vectors trim and join values and keep their case", "[s3][sigv4]") {
  Signed dup = sign_v4(
      suite_request("GET", "/", {}, {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}}),
      kSuite);
  CHECK(dup.canonical_request.find("\nmy-header1:value2,value2,value1\n") != std::string::npos);
  CHECK(dup.signature == "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea");
  Signed trim =
      sign_v4(suite_request("GET", "/", {}, {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}}), kSuite);
  CHECK(trim.canonical_request.find("\nmy-header2:\"a b c\"\n") != std::string::npos);
  CHECK(trim.signature == "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
  Signed value_case = sign_v4(suite_request("POST", "/", {}, {{"My-Header1", "VALUE1"}}), kSuite);
  CHECK(value_case.signature == "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d");
}

TEST_CASE("sigv4 post-vanilla-query and post-x-www-form-urlencoded sign a body's hash", "[s3][sigv4]") {
  CHECK(sign_v4(suite_request("POST", "/", {{"Param1", "value1"}}), kSuite).signature ==
        "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11");
  SignRequest r =
      suite_request("POST", "/", {}, {{"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Length", "13"}});
  r.payload_hash = sha256_hex("Param1=value1");
  r.content_sha256_header = true;
  CHECK(r.payload_hash == "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  Signed s = sign_v4(r, kSuite);
  CHECK(s.authorization == authz("content-length;content-type;host;x-amz-content-sha256;x-amz-date",
                                 "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"));
}

TEST_CASE("sigv4 signs a session token as x-amz-security-token and sends it", "[s3][sigv4]") {
  Credentials c = kSuite;
  c.session_token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";
  Signed s = sign_v4(suite_request("GET", "/"), c);
  CHECK(s.canonical_request.find("\nx-amz-security-token:" + c.session_token + "\n") != std::string::npos);
  CHECK(s.signature == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8");
  bool sent = false;
  for (const auto& [k, v] : s.headers) sent |= k == "x-amz-security-token" && v == c.session_token;
  CHECK(sent);
}

TEST_CASE("sigv4 encodes S3 keys with equals plus spaces and non-ASCII bytes once", "[s3][sigv4]") {
  CHECK(uri_encode("/b/chk-1/a=b+c d", true) == "/b/chk-1/a%3Db%2Bc%20d");
  CHECK(uri_encode("a/b", false) == "a%2Fb");
  CHECK(uri_encode("\xC3\xA9t\xC3\xA9", true) == "%C3%A9t%C3%A9");
  CHECK(uri_encode("100%", true) == "100%25");
  // A '+' is a plus, never a space; '=' inside a value is encoded so that the pair stays one.
  CHECK(canonical_query({{"prefix", "a+b=c d"}, {"list-type", "2"}}) == "list-type=2&prefix=a%2Bb%3Dc%20d");
  CHECK(canonical_query({{"uploads", ""}}) == "uploads=");
  // The S3 example of AWS's documentation (GetObject, a range, UNSIGNED body hash of an empty
  // string): "Example: GET Object" in "Signature Calculations for the Authorization Header".
  SignRequest r;
  r.method = "GET";
  r.host = "examplebucket.s3.amazonaws.com";
  r.path = "/test.txt";
  r.headers = {{"Range", "bytes=0-9"}};
  r.payload_hash = kEmpty;
  r.amz_date = "20130524T000000Z";
  r.region = "us-east-1";
  Signed s = sign_v4(r, Credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", ""});
  CHECK(s.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  CHECK(amz_date(1440938160) == "20150830T123600Z");
}
