// The bounded XML reader of S3 answers, and the answers read from it.
#include <catch2/catch.hpp>

#include <string>

#include "s3/responses.h"
#include "s3/xml.h"

using namespace ckpt;
using namespace ckpt::s3;

TEST_CASE("s3 xml reads a ListObjectsV2 page with entities and pagination", "[s3][xml]") {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>b</Name><Prefix>job/</Prefix>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>tok+/=</NextContinuationToken>"
      "<Contents><Key>job/a&amp;b &lt;&#x41;&#66;&gt;</Key><LastModified>2026-12-01T22:10:05.000Z</LastModified>"
      "<ETag>&quot;x&quot;</ETag><Size>42</Size></Contents>"
      "<!-- a comment --><Contents><Key><![CDATA[job/<raw>]]></Key><LastModified>1970-01-02T00:00:01Z</LastModified>"
      "<Size>0</Size></Contents><CommonPrefixes><Prefix>job/shared/</Prefix></CommonPrefixes></ListBucketResult>";
  auto page = parse_list_objects_v2(body, "s3://b/job/");
  REQUIRE(page);
  REQUIRE(page.value().objects.size() == 2);
  CHECK(page.value().objects[0].key == "job/a&b <AB>");
  CHECK(page.value().objects[0].size == 42);
  CHECK(page.value().objects[0].last_modified == 1796163005);
  CHECK(page.value().objects[1].key == "job/<raw>");
  CHECK(page.value().objects[1].last_modified == 86401);
  CHECK(page.value().truncated);
  CHECK(page.value().next_token == "tok+/=");
  CHECK(page.value().common_prefixes == std::vector<std::string>{"job/shared/"});
}

TEST_CASE("s3 xml refuses malformed deep and DTD-bearing answers with offsets", "[s3][xml]") {
  auto unclosed = parse_xml("<a><b>x</a>", "s3://b/k");
  REQUIRE_FALSE(unclosed);
  CHECK(unclosed.error().file == "s3://b/k");
  CHECK(unclosed.error().offset == 7u);
  CHECK(unclosed.error().message.find("</a>") != std::string::npos);
  std::string deep;
  for (int i = 0; i < kXmlMaxDepth + 1; ++i) deep += "<d>";
  auto too_deep = parse_xml(deep, "u");
  REQUIRE_FALSE(too_deep);
  CHECK(too_deep.error().message.find("nested deeper than 32") != std::string::npos);
  auto dtd = parse_xml("<!DOCTYPE x [<!ENTITY a \"b\">]><x>&a;</x>", "u");
  REQUIRE_FALSE(dtd);
  CHECK(dtd.error().code == ErrorCode::kNotSupported);
  CHECK_FALSE(parse_xml("<a>&bogus;</a>", "u"));
  CHECK_FALSE(parse_xml("<a>&#0;</a>", "u"));
  CHECK_FALSE(parse_xml("<a>&#x110000;</a>", "u"));
  CHECK_FALSE(parse_xml("<a></a><b></b>", "u"));
  CHECK_FALSE(parse_xml("", "u"));
  CHECK_FALSE(parse_xml("<a x='1></a>", "u"));
  // A failed name then spaces: the reader's skips stop after an error, the scan must too (a
  // fuzz finding that spun forever).
  CHECK_FALSE(parse_xml("<a></   >", "u"));
  CHECK_FALSE(parse_xml("<\xE2   ", "u"));
  // A listing without what a page must have is refused, naming the URI.
  auto no_size =
      parse_list_objects_v2("<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>", "s3://b/p");
  REQUIRE_FALSE(no_size);
  CHECK(no_size.error().message == "object 'k' without a valid <Size>");
  auto truncated =
      parse_list_objects_v2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>", "s3://b/p");
  REQUIRE_FALSE(truncated);
  auto other = parse_list_objects_v2("<Error><Code>x</Code></Error>", "s3://b/p");
  REQUIRE_FALSE(other);
  CHECK(other.error().message == "expected a <ListBucketResult> response, found <Error>");
}

TEST_CASE("s3 xml reads error bodies delete results upload ids and STS credentials", "[s3][xml]") {
  ErrorBody e = parse_error_body("<Error><Code>SlowDown</Code><Message>Reduce</Message></Error>");
  CHECK(e.code == "SlowDown");
  CHECK(e.message == "Reduce");
  CHECK(parse_error_body("<ErrorResponse><Error><Code>InvalidIdentityToken</Code></Error></ErrorResponse>").code ==
        "InvalidIdentityToken");
  CHECK(parse_error_body("not xml").code.empty());
  auto failures = parse_delete_result(
      "<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code>"
      "<Message>no</Message></Error></DeleteResult>",
      "s3://b");
  REQUIRE(failures);
  REQUIRE(failures.value().size() == 1);
  CHECK(failures.value()[0].key == "b");
  CHECK(failures.value()[0].code == "AccessDenied");
  auto id = parse_upload_id("<InitiateMultipartUploadResult><UploadId>u-1</UploadId></InitiateMultipartUploadResult>",
                            "s3://b/k");
  REQUIRE(id);
  CHECK(id.value() == "u-1");
  CHECK_FALSE(parse_upload_id("<InitiateMultipartUploadResult/>", "s3://b/k"));
  int64_t t = 0;
  CHECK(parse_iso8601("2000-03-01T00:00:00Z", &t));
  CHECK(t == 951868800);
  CHECK_FALSE(parse_iso8601("2000-13-01T00:00:00Z", &t));
}
