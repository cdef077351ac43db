// Value types and their named decoders: every encoding in use, and what is not an encoding.
#include <cuarch/core/decode.hpp>

#include "test_support.hpp"

using namespace cuarch;

TEST_CASE("decoders: each integer encoding has its own door", "[decode]") {
  CUARCH_CHECK_BOTH(decode_cudart_version(13000).value() == cuda_version{13, 0});
  CUARCH_CHECK_BOTH(decode_cudart_version(12080).value() == cuda_version{12, 8});
  CUARCH_CHECK_BOTH(decode_cudart_version(11080).value() == cuda_version{11, 8});
  CUARCH_CHECK_BOTH(decode_nvrtc_version(13, 0).value() == cuda_version{13, 0});
  CUARCH_CHECK_BOTH(decode_sm_number(120).value() == compute_capability{12, 0});
  CUARCH_CHECK_BOTH(decode_sm_number(90).value() == compute_capability{9, 0});
  CUARCH_CHECK_BOTH(decode_cuda_arch_macro(1200).value() == compute_capability{12, 0});
  CUARCH_CHECK_BOTH(decode_cuda_arch_macro(860).value() == compute_capability{8, 6});
}

TEST_CASE("decoders refuse what is not an encoding", "[decode]") {
  CUARCH_CHECK_BOTH(decode_cudart_version(0).error().code == errc::invalid_version);  // "no driver"
  CUARCH_CHECK_BOTH(!decode_cudart_version(-1));
  CUARCH_CHECK_BOTH(!decode_cudart_version(12085));  // not 1000*major + 10*minor
  CUARCH_CHECK_BOTH(!decode_cudart_version(120));    // that is a cc, not a CUDA version
  CUARCH_CHECK_BOTH(!decode_nvrtc_version(-1, 0));
  CUARCH_CHECK_BOTH(!decode_sm_number(9));
  CUARCH_CHECK_BOTH(!decode_cuda_arch_macro(905));
  CUARCH_CHECK_BOTH(!decode_cuda_arch_macro(90));  // that is an sm number
}

TEST_CASE("version strings", "[decode]") {
  CUARCH_CHECK_BOTH(parse_cuda_version("12.4").value() == cuda_version{12, 4});
  CUARCH_CHECK_BOTH(parse_cuda_version("12.4.127").value() == cuda_version{12, 4, 127});
  CUARCH_CHECK_BOTH(parse_cuda_version("V13.0.88").value() == cuda_version{13, 0, 88});
  CUARCH_CHECK_BOTH(!parse_cuda_version("12"));
  CUARCH_CHECK_BOTH(!parse_cuda_version("12.x"));
  CUARCH_CHECK_BOTH(!parse_cuda_version("12.4.127.1"));
  CUARCH_CHECK_BOTH(!parse_cuda_version(""));
  CUARCH_CHECK_BOTH(parse_driver_version("580.65.06").value() == driver_version{580, 65, 6});
  CUARCH_CHECK_BOTH(parse_driver_version("570.26").value() == driver_version{570, 26, -1});
  CUARCH_CHECK_BOTH(!parse_driver_version("580"));
  CUARCH_CHECK_BOTH(parse_ptx_isa_version("9.0").value() == ptx_isa_version{9, 0});
  CUARCH_CHECK_BOTH(!parse_ptx_isa_version("9.0.1"));
  CUARCH_CHECK_BOTH(!parse_ptx_isa_version(" V9.0"));  // nvcc's "V" spelling is refused behind blanks too
  CUARCH_CHECK_BOTH(!parse_ptx_isa_version("\tv9.0"));
}

TEST_CASE("nvcc --version output: banners, CRLF, and nonsense", "[decode]") {
  constexpr std::string_view real =
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
      "Build cuda_13.0.r13.0/compiler.36424714_0\n";
  CUARCH_CHECK_BOTH(parse_nvcc_version_output(real).value() == cuda_version{13, 0, 88});
  constexpr std::string_view crlf = "banner\r\nCuda compilation tools, release 12.4, V12.4.131\r\n";
  CUARCH_CHECK_BOTH(parse_nvcc_version_output(crlf).value() == cuda_version{12, 4, 131});
  constexpr std::string_view no_v = "Cuda compilation tools, release 11.8\n";  // no comma: not the line format
  CUARCH_CHECK_BOTH(!parse_nvcc_version_output(no_v));
  constexpr std::string_view mismatched = "Cuda compilation tools, release 12.8, V12.4.1\n";  // V disagrees: keep release
  CUARCH_CHECK_BOTH(parse_nvcc_version_output(mismatched).value() == cuda_version{12, 8});
  const auto bad = parse_nvcc_version_output("Segmentation fault\n");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == errc::malformed_output);
  CHECK(bad.error().source == source_kind::nvcc);
  CHECK(bad.error().message().find("Segmentation fault") != std::string::npos);
}

TEST_CASE("ordering of versions derives from one compare and treats patch as finer", "[version]") {
  constexpr cuda_version a{12, 4}, b{12, 4, 127}, c{12, 8}, d{13, 0};
  CUARCH_CHECK_BOTH(a < b && b < c && c < d);
  CUARCH_CHECK_BOTH(a <= a && a >= a && !(a < a) && !(a > a));
  CUARCH_CHECK_BOTH(b.release() == a && a != b);
  CUARCH_CHECK_BOTH(compute_capability{9, 0} <= compute_capability{9, 0});  // caw had <= as <
  CUARCH_CHECK_BOTH(compute_capability{12, 0} > compute_capability{9, 0});  // numeric, not lexicographic
  CUARCH_CHECK_BOTH(compute_capability{10, 0}.sm_number() == 100);
  CUARCH_CHECK_BOTH(*decode_cudart_version(12080) == cuda_version{12, 8});
  CUARCH_CHECK_BOTH(ptx_isa_version{8, 8} < ptx_isa_version{9, 0} && ptx_isa_version{9, 0} >= ptx_isa_version{9, 0});
  CUARCH_CHECK_BOTH(driver_version{580, 65, 6} > driver_version{580, 65} &&
                    driver_version{570, 26} != driver_version{580, 65});
}

// The operators come from no helper macro left defined in the user's translation unit.
#ifdef CUARCH_DETAIL_ORDERED
#  error "CUARCH_DETAIL_ORDERED leaks out of <cuarch/core/cuda_version.hpp> into every user's code"
#endif

TEST_CASE("to_text spellings", "[version]") {
  CUARCH_CHECK_BOTH(to_text(cuda_version{13, 0}).view() == "13.0");
  CUARCH_CHECK_BOTH(to_text(cuda_version{12, 4, 127}).view() == "12.4.127");
  CUARCH_CHECK_BOTH(to_text(driver_version{580, 65, 6}).view() == "580.65.06");
  CUARCH_CHECK_BOTH(to_text(driver_version{575, 51, 13}).view() == "575.51.13");
  CUARCH_CHECK_BOTH(to_text(driver_version{570, 26}).view() == "570.26");
  CUARCH_CHECK_BOTH(to_text(compute_capability{12, 1}).view() == "12.1");
  CUARCH_CHECK_BOTH(to_text(ptx_isa_version{9, 0}).view() == "9.0");
}
