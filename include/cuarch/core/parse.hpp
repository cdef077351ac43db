// Parsing every spelling of a CUDA target that users type, constexpr, in four dialects: generic
// (the lenient door), torch (TORCH_CUDA_ARCH_LIST as PyTorch 2.15.0 reads it), cmake
// (CUDA_ARCHITECTURES) and nvcc (its target flags); docs/design.md, "Input grammar and dialects",
// has the grammar. Nothing is dropped: anything unrecognised is an error naming the token and its offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>

#include "arch.hpp"
#include "config.hpp"
#include "detail/chars.hpp"
#include "detail/name_map.hpp"
#include "error.hpp"
#include "expected.hpp"

CUARCH_BEGIN_NAMESPACE

enum class arch_dialect : unsigned char { generic, torch, cmake, nvcc };
inline constexpr std::string_view arch_dialect_names[] = {"generic", "torch", "cmake", "nvcc"};
inline constexpr auto all_arch_dialects = detail::enumerators<arch_dialect>(arch_dialect_names);

constexpr std::string_view to_string(arch_dialect e) noexcept { return detail::name_of(arch_dialect_names, e); }
/// The dialect spelled `name` (as to_string writes it); nullopt for any other text.
constexpr std::optional<arch_dialect> parse_arch_dialect(std::string_view name) noexcept {
  return detail::find_by_name(all_arch_dialects, name);
}

/// native / all / all-major: requests resolved later against devices or the compile toolkit.
enum class arch_keyword : unsigned char { none, native, all, all_major };
inline constexpr std::string_view arch_keyword_names[] = {"", "native", "all", "all-major"};

constexpr std::string_view to_string(arch_keyword k) noexcept { return detail::name_of(arch_keyword_names, k); }

/// One target and where in the input it was written.
struct parsed_target {
  arch_target target{};
  std::size_t position = 0;  // offset of the token in the input
  std::size_t length = 0;    // length of the token
};

/// The targets one token stands for (`9.0+PTX` is two: sm_90 and compute_90).
struct token_targets {
  arch_target items[2]{};
  std::size_t count = 0;
};

/// A keyword, or targets in input order without duplicates; fixed capacity: parsing never allocates.
class parsed_arch_list {
  // Slots hold no target until one is added: an array of parsed_target (whose default member
  // initialisers C++17 constexpr needs) made a 3 KB memset part of every parse. A slot becomes a
  // target only by whole-slot assignment (constant-evaluated in C++17: tests/parse_test.cpp).
  struct no_target {};
  union slot {
    no_target none;
    parsed_target value;
#if __cpp_constexpr >= 201907L
    constexpr slot() noexcept {}  // C++20: a constexpr constructor may leave a union inactive
#else
    // C++17 makes a constexpr union constructor initialise one member, and g++ 12 folds that into a
    // 3 KB clear per parse (measured: `rep stos`); a test no constant evaluation can answer stops it.
    constexpr slot() noexcept : none() {
#  if defined(__GNUC__) || defined(__clang__)
      if (__builtin_is_constant_evaluated()) {}
#  endif
    }
#endif
    constexpr explicit slot(const parsed_target& t) noexcept : value(t) {}
  };

 public:
  static constexpr std::size_t capacity = 96;

  // User-provided: value-initialisation zero-fills an object whose default constructor is implicit.
  constexpr parsed_arch_list() noexcept {}

  /// Iterates the targets in input order (a class, not a pointer: the slots are not an array of parsed_target).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = parsed_target;
    using difference_type = std::ptrdiff_t;
    using pointer = const parsed_target*;
    using reference = const parsed_target&;

    constexpr const_iterator() noexcept = default;
    constexpr reference operator*() const noexcept { return p_->value; }
    constexpr pointer operator->() const noexcept { return &p_->value; }
    constexpr const_iterator& operator++() noexcept {
      ++p_;
      return *this;
    }
    constexpr const_iterator operator++(int) noexcept { return const_iterator(p_++); }
    friend constexpr bool operator==(const_iterator a, const_iterator b) noexcept { return a.p_ == b.p_; }
    friend constexpr bool operator!=(const_iterator a, const_iterator b) noexcept { return a.p_ != b.p_; }

   private:
    friend class parsed_arch_list;
    constexpr explicit const_iterator(const slot* p) noexcept : p_(p) {}
    const slot* p_ = nullptr;
  };
  using iterator = const_iterator;

  constexpr arch_keyword keyword() const noexcept { return keyword_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr const parsed_target& operator[](std::size_t i) const noexcept { return slots_[i].value; }
  constexpr const_iterator begin() const noexcept { return const_iterator(slots_); }
  constexpr const_iterator end() const noexcept { return const_iterator(slots_ + size_); }
  constexpr bool contains(const arch_target& t) const noexcept {
    if ((seen_[filter_bit(t) / 64] & (std::uint64_t{1} << (filter_bit(t) % 64))) == 0) return false;
    for (std::size_t i = 0; i < size_; ++i)
      if (slots_[i].value.target == t) return true;
    return false;
  }

  constexpr void set_keyword(arch_keyword k) noexcept { keyword_ = k; }
  /// Adds t unless already present; false when full.
  constexpr bool add(const parsed_target& t) noexcept {
    if (contains(t.target)) return true;
    if (size_ == capacity) return false;
    slots_[size_++] = slot(t);
    const unsigned bit = filter_bit(t.target);
    seen_[bit / 64] |= std::uint64_t{1} << (bit % 64);
    return true;
  }

 private:
  // A 128-bit filter says "certainly new" for almost every target (same variant and form, sm 10-137:
  // no shared bit); only a set bit (a duplicate, or sm_75 vs lto_89: tests/parse_test.cpp) scans.
  static constexpr unsigned filter_bit(const arch_target& t) noexcept {
    // Unsigned: contains() may be asked about any cc; wrapping is harmless.
    const unsigned sm = static_cast<unsigned>(t.cc.major) * 10u + static_cast<unsigned>(t.cc.minor);
    const unsigned key = sm * 9u + static_cast<unsigned>(t.variant) * 3u + static_cast<unsigned>(t.form);
    return key % 128u;
  }

  slot slots_[capacity];
  std::uint64_t seen_[2]{};
  std::size_t size_ = 0;
  arch_keyword keyword_ = arch_keyword::none;
};

namespace detail {

/// A token cuarch cannot read: malformed_token naming it and its offset.
constexpr unexpected<error> bad_token(std::string_view token, std::size_t position) {
  return unexpected(errors::malformed_token(source_kind::user_input, token, position));
}

// ---- The usual spellings, in one pass ------------------------------------------------------------
// The full readers below return an expected<.., error>, whose error (520 B) every path carries: a JIT
// library that parses on each call paid for it per token. The quick readers accept only well-formed
// targets, in one pass and without an error; for anything else they say nothing, and the full readers
// decide, error and all. What a quick reader accepts, the full one reads the same
// (tests/parse_test.cpp compares them on every short token).

/// The variant letter, if any, that ends a target after compute capability `cc`: all of `rest`.
constexpr std::optional<arch_target> quick_variant(std::string_view rest, compute_capability cc) noexcept {
  if (!rest.empty() && rest != "a" && rest != "f") return std::nullopt;
  const arch_variant v = rest.empty()     ? arch_variant::baseline
                         : rest[0] == 'a' ? arch_variant::arch_specific
                                          : arch_variant::family_specific;
  if (!variant_exists(cc, v)) return std::nullopt;
  return arch_target{cc, v, arch_form::sass};
}

/// "<sm number>[a|f]", all of `s`: two or three digits, no leading zero ("90a", "120").
constexpr std::optional<arch_target> quick_sm_number(std::string_view s) noexcept {
  int number = 0;
  std::size_t n = 0;
  for (const char c : s) {  // a range loop, as in read_uint
    if (!is_digit(c) || n == 3) break;
    number = number * 10 + (c - '0');
    ++n;
  }
  if (n < 2 || s[0] == '0') return std::nullopt;
  return quick_variant(s.substr(n), compute_capability{number / 10, number % 10});
}

/// "D.D[a|f]" or "DD.D[a|f]", all of `s`, no leading zero ("9.0a", "12.0").
constexpr std::optional<arch_target> quick_dotted(std::string_view s) noexcept {
  const std::size_t dot = s.size() > 2 && s[1] == '.' ? 1 : s.size() > 3 && s[2] == '.' ? 2 : 0;
  if (dot == 0 || s[0] == '0' || !is_digit(s[0]) || !is_digit(s[dot - 1]) || !is_digit(s[dot + 1])) return std::nullopt;
  const int major = dot == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
  return quick_variant(s.substr(dot + 2), compute_capability{major, s[dot + 1] - '0'});
}

/// sm_/compute_/lto_ + "<sm number>[a|f]"; with `bare_sm`, also "sm90" (Triton's spelling; nvcc refuses it).
constexpr std::optional<arch_target> quick_prefixed(std::string_view s, bool bare_sm) noexcept {
  const auto read = [](std::string_view number, arch_form form) -> std::optional<arch_target> {
    const auto t = quick_sm_number(number);
    if (!t) return std::nullopt;
    return with_form(*t, form);
  };
  if (starts_with(s, "sm_")) return read(s.substr(3), arch_form::sass);
  if (starts_with(s, "compute_")) return read(s.substr(8), arch_form::ptx);
  if (starts_with(s, "lto_")) return read(s.substr(4), arch_form::lto);
  if (bare_sm && starts_with(s, "sm")) return read(s.substr(2), arch_form::sass);
  return std::nullopt;
}

/// "<digits>[a|f]" at rest[n] after compute capability cc has been read: the variant, which must
/// exist for cc, and then nothing more. A letter left over is an unknown suffix ("compute_90b"),
/// anything else a malformed token ("sm_90a1", "sm_9.0").
constexpr expected<arch_target, error> read_variant(std::string_view rest, compute_capability cc, std::size_t n,
                                                    std::string_view token, std::size_t position) {
  arch_target t{cc, arch_variant::baseline, arch_form::sass};
  if (n < rest.size() && (rest[n] == 'a' || rest[n] == 'f'))
    t.variant = rest[n++] == 'a' ? arch_variant::arch_specific : arch_variant::family_specific;
  if (!variant_exists(cc, t.variant))
    return unexpected(errors::variant_not_defined(source_kind::user_input, t, token, position));
  if (n == rest.size()) return t;
  const char c = rest[n];
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return unexpected(letter ? errors::unknown_suffix(source_kind::user_input, token, position)
                           : errors::malformed_token(source_kind::user_input, token, position));
}

/// "<sm number>[a|f]", all of rest: sm_/compute_/lto_ after the prefix, and CMake integers.
constexpr expected<arch_target, error> read_sm_number(std::string_view rest, std::string_view token,
                                                      std::size_t position) {
  int number = 0;
  const std::size_t n = read_uint(rest, number);
  // Two or three digits, no leading zero: 75, 90, 120. One digit or "075" is not a target.
  if (n < 2 || n > 3 || rest[0] == '0') return bad_token(token, position);
  return read_variant(rest, compute_capability{number / 10, number % 10}, n, token, position);
}

/// "12.0a" -> 12.0 + a; major one or two digits, minor exactly one digit.
constexpr expected<arch_target, error> read_dotted(std::string_view s, std::string_view token, std::size_t position) {
  int major = 0, minor = 0;
  const std::size_t n = read_uint(s, major);
  if (n < 1 || n > 2 || s[0] == '0' || n >= s.size() || s[n] != '.' || read_uint(s.substr(n + 1), minor) != 1)
    return bad_token(token, position);
  return read_variant(s, compute_capability{major, minor}, n + 2, token, position);
}

/// `<prefix><number>[a|f]` with prefix sm_ / compute_ / lto_ (also `sm90`, as Triton writes it);
/// a token with none of them is malformed.
constexpr expected<arch_target, error> parse_prefixed(std::string_view token, std::size_t position) {
  for (const arch_form form : {arch_form::sass, arch_form::ptx, arch_form::lto}) {
    if (!starts_with(token, prefix(form))) continue;
    const auto r = read_sm_number(token.substr(prefix(form).size()), token, position);
    if (!r) return r;
    return with_form(*r, form);
  }
  if (starts_with(token, "sm")) return read_sm_number(token.substr(2), token, position);
  return bad_token(token, position);
}

/// nvcc's own spelling of a target is sm_/compute_/lto_ + number + optional a/f, which
/// quick_prefixed(v, false) reads ("sm90" is refused). Where it refuses `v`, this is why: the flag is
/// malformed, or the target is (an unknown suffix, a variant not defined).
constexpr error nvcc_target_error(std::string_view v, std::size_t position, std::string_view flag) {
  if (!starts_with(v, "sm_") && !starts_with(v, "compute_") && !starts_with(v, "lto_"))
    return bad_token(flag, position).error();
  const auto t = parse_prefixed(v, position);
  return t ? bad_token(flag, position).error() : t.error();  // t: never, quick_prefixed reads what it reads
}
}  // namespace detail

/// One token of a list in the given dialect (no keywords, no named generations, no nvcc flags).
constexpr expected<token_targets, error> parse_arch_token(std::string_view token,
                                                          arch_dialect dialect = arch_dialect::generic,
                                                          std::size_t position = 0) {
  if (token.empty()) return unexpected(errors::empty_input(source_kind::user_input, token, position));
  const bool prefixed = detail::starts_with(token, "sm") || detail::starts_with(token, "compute_") ||
                        detail::starts_with(token, "lto_");
  if (dialect == arch_dialect::nvcc || (prefixed && dialect == arch_dialect::generic)) {
    if (const auto q = detail::quick_prefixed(token, dialect == arch_dialect::generic)) return token_targets{{*q}, 1};
    if (dialect == arch_dialect::nvcc) return unexpected(detail::nvcc_target_error(token, position, token));
    const auto t = detail::parse_prefixed(token, position);
    if (!t) return unexpected(t.error());
    return token_targets{{*t}, 1};
  }

  if (dialect == arch_dialect::generic)
    if (const auto q = detail::quick_dotted(token)) return token_targets{{*q}, 1};
  std::string_view body = token;
  const bool ptx = dialect != arch_dialect::cmake && body.size() >= 4 &&
                   detail::iequals(body.substr(body.size() - 4), "+ptx");
  if (ptx) body.remove_suffix(4);
  const bool dotted = dialect != arch_dialect::cmake && body.find('.') != std::string_view::npos;
  if (dialect == arch_dialect::torch && !dotted) return detail::bad_token(token, position);
  // Integer forms: "90a-real" (SASS only) and "90a-virtual" (PTX only), never with +PTX.
  const bool real = !dotted && !ptx && detail::ends_with(body, "-real");
  const bool virt = !dotted && !ptx && detail::ends_with(body, "-virtual");
  body.remove_suffix(real ? 5 : virt ? 8 : 0);
  const auto sass = dotted ? detail::read_dotted(body, token, position) : detail::read_sm_number(body, token, position);
  if (!sass) return unexpected(sass.error());
  if (real || virt) return token_targets{{with_form(*sass, real ? arch_form::sass : arch_form::ptx)}, 1};
  // CMake's bare "90a" means SASS and PTX. Elsewhere only +PTX adds PTX, and asks for PTX that later
  // GPUs can JIT, which a/f code never runs on; but PyTorch's "9.0a+PTX" adds compute_90a beside sm_90a.
  if (!ptx && dialect != arch_dialect::cmake) return token_targets{{*sass}, 1};
  if (ptx && dialect != arch_dialect::torch && sass->variant != arch_variant::baseline)
    return unexpected(errors::ptx_of_specific_variant(source_kind::user_input, *sass, token, position));
  return token_targets{{*sass, with_form(*sass, arch_form::ptx)}, 2};
}

/// Exactly one target: `sm_120a`, `compute_90`, `lto_90`, `12.0a`, `120a`, `90-virtual`.
/// Spellings that stand for two targets (`9.0+PTX`) are rejected here; use parse_arch_list.
constexpr expected<arch_target, error> parse_arch(std::string_view token) {
  const std::string_view t = detail::trim(token);
  const auto r = parse_arch_token(t);
  if (!r) return unexpected(r.error());
  if (r->count != 1) return detail::bad_token(t, 0);
  return r->items[0];
}

namespace detail {

/// How torch 2.15.0's _get_cuda_arch_flags reads TORCH_CUDA_ARCH_LIST (docs/conformance.md, "PyTorch:
/// TORCH_CUDA_ARCH_LIST"; tests/data/torch_arch_list_2.15.0.tsv): each name below is replaced wherever
/// it occurs (str.replace, in this order), then every ';' entry must be one of torch_supported_arches,
/// with or without "+PTX" (case-sensitive).
struct named_generation {
  std::string_view name;
  std::string_view archs;
};
inline constexpr named_generation torch_named_generations[] = {
    {"Kepler+Tesla", "3.7"},     {"Kepler", "3.5+PTX"},
    {"Maxwell+Tegra", "5.3"},    {"Maxwell", "5.0;5.2+PTX"},
    {"Pascal", "6.0;6.1+PTX"},   {"Volta+Tegra", "7.2"},
    {"Volta", "7.0+PTX"},        {"Turing", "7.5+PTX"},
    {"Ampere+Tegra", "8.7"},     {"Ampere", "8.0;8.6+PTX"},
    {"Ada", "8.9+PTX"},          {"Hopper", "9.0+PTX"},
    {"Blackwell+Tegra", "11.0"}, {"Blackwell", "10.0;10.3;12.0;12.1+PTX"},
    {"Rubin", "10.7+PTX"},
};
inline constexpr std::string_view torch_supported_arches[] = {
    "3.5",   "3.7",  "5.0",   "5.2",  "5.3",   "6.0",  "6.1",   "6.2",  "7.0",   "7.2",
    "7.5",   "8.0",  "8.6",   "8.7",  "8.9",   "9.0",  "9.0a",  "10.0", "10.0a", "11.0",
    "11.0a", "10.3", "10.3a", "10.7", "10.7a", "12.0", "12.0a", "12.1", "12.1a"};

/// torch_supported_arches as bits, one per sm number, for the baseline and the `a` variant: each
/// entry is a target's one canonical spelling, the only one quick_dotted reads as that target.
struct torch_target_bits {
  std::uint64_t baseline[2]{}, arch_specific[2]{};
  constexpr bool has(const arch_target& t) const noexcept {
    const auto sm = static_cast<unsigned>(t.cc.sm_number());
    if (sm >= 128 || t.variant == arch_variant::family_specific) return false;
    const std::uint64_t* bits = t.variant == arch_variant::baseline ? baseline : arch_specific;
    return (bits[sm / 64] >> (sm % 64)) & 1u;
  }
};
constexpr torch_target_bits torch_bits_of_list() noexcept {
  torch_target_bits b;
  for (const std::string_view s : torch_supported_arches) {
    const arch_target t = *quick_dotted(s);  // every entry reads (tests/parse_test.cpp)
    const auto sm = static_cast<unsigned>(t.cc.sm_number());
    (t.variant == arch_variant::baseline ? b.baseline : b.arch_specific)[sm / 64] |= std::uint64_t{1} << (sm % 64);
  }
  return b;
}
inline constexpr torch_target_bits torch_supported_targets = torch_bits_of_list();

/// `entry` ("9.0a", "8.6+PTX") is one PyTorch accepts ("+PTX" is case-sensitive there).
constexpr bool torch_supports(std::string_view entry) noexcept {
  if (ends_with(entry, "+PTX")) entry.remove_suffix(4);
  const auto t = quick_dotted(entry);
  return t && torch_supported_targets.has(*t);
}

/// A plain entry ("8.6", "9.0a+PTX") PyTorch accepts, read in one pass; nothing for any other token
/// (a named generation, or one to refuse), which add_torch_token reads in full.
constexpr std::optional<token_targets> quick_torch_entry(std::string_view token) noexcept {
  const bool ptx = ends_with(token, "+PTX");
  const auto t = quick_dotted(ptx ? token.substr(0, token.size() - 4) : token);
  if (!t || !torch_supported_targets.has(*t)) return std::nullopt;
  return ptx ? token_targets{{*t, with_form(*t, arch_form::ptx)}, 2} : token_targets{{*t}, 1};
}

constexpr arch_keyword keyword_of(std::string_view token) noexcept {
  if (token.empty() || (token[0] != 'n' && token[0] != 'a'))
    return arch_keyword::none;  // most tokens: a digit or "sm_"
  return find_by_name(enumerators<arch_keyword>(arch_keyword_names), token).value_or(arch_keyword::none);
}

constexpr expected<void, error> add_targets(parsed_arch_list& list, const token_targets& t, std::size_t position,
                                            std::size_t length, std::string_view input) {
  for (std::size_t i = 0; i < t.count; ++i)
    if (!list.add(parsed_target{t.items[i], position, length}))
      return unexpected(errors::too_many_targets(source_kind::user_input, input));
  return {};
}

// ---- nvcc flags ----------------------------------------------------------------------------------
// Read as nvcc 13.0 reads them (tests/data/nvcc_flags_13.0.tsv, recorded from the real nvcc and
// cuobjdump; docs/conformance.md, "nvcc 13.0"). The targets are the images nvcc embeds; -arch alone:
//   -arch=sm_XY          SASS sm_XY + PTX compute_XY
//   -arch=sm_XYa|f       SASS sm_XYa|f + PTX compute_XY + PTX compute_XYa|f (nvcc adds the baseline PTX)
//   -arch=compute_XYa|f  PTX compute_XY + PTX compute_XYa|f; lto_XYf likewise lto_XY + lto_XYf

/// The image nvcc builds for code `c` from the virtual architecture `virt` (compute_V), or nullopt
/// where nvcc refuses ("Incompatible code generation requested", or ptxas's "cannot be compiled to
/// future architecture"). PTX: only compute_V itself. SASS from a baseline compute_V: any sm_ of
/// cc >= V, an `f` one only within V's family (same major). From compute_Va: only sm_Va. From
/// compute_Vf: sm_ of V's family with cc >= V, built family-specific (code=sm_103 gives sm_103f).
/// LTO IR (code=lto_) follows the SASS rule, only with relocatable device code (`rdc`), and from
/// compute_Vf only as lto_Xf.
constexpr std::optional<arch_target> nvcc_code_image(const arch_target& virt, arch_target c, bool rdc) noexcept {
  if (c.form == arch_form::ptx) return c == virt ? std::optional<arch_target>(c) : std::nullopt;
  if ((c.form == arch_form::lto && !rdc) || c.cc < virt.cc) return std::nullopt;  // nvcc_lto_flag
  switch (virt.variant) {
    case arch_variant::arch_specific:
      if (with_form(c, arch_form::sass) != with_form(virt, arch_form::sass)) return std::nullopt;  // sm_Va / lto_Va
      return c;
    case arch_variant::family_specific:
      if (c.cc.major != virt.cc.major) return std::nullopt;
      if (c.form == arch_form::lto && c.variant != arch_variant::family_specific) return std::nullopt;  // no lto_103(a)
      if (c.variant == arch_variant::baseline) c.variant = arch_variant::family_specific;
      return c;
    case arch_variant::baseline: break;
  }
  if (c.variant == arch_variant::family_specific && c.cc.major != virt.cc.major) return std::nullopt;
  return c;
}

/// Each code of a comma-separated list ("sm_80,sm_86", "[sm_80,compute_80]"), built from `virt`.
/// `skip_empty`: -code's list tolerates empty entries (a trailing comma), a bracketed one does not.
constexpr expected<void, error> add_nvcc_codes(parsed_arch_list& list, std::string_view codes, const arch_target& virt,
                                               bool skip_empty, bool rdc, std::size_t position, std::string_view flag,
                                               std::string_view input) {
  while (true) {
    const std::size_t comma = codes.find(',');
    const std::string_view code = codes.substr(0, comma);
    if (!code.empty() || !skip_empty) {
      const auto c = quick_prefixed(code, false);
      if (!c) return unexpected(nvcc_target_error(code, position, flag));
      const auto image = nvcc_code_image(virt, *c, rdc);
      if (!image) return bad_token(flag, position);
      // A target is built from the virtual architecture of its own compute capability: machine code
      // from a lower one (arch=compute_80,code=sm_86) compiles other code, so it is refused, never
      // rewritten (docs/conformance.md, "nvcc 13.0: how nvcc reads target flags").
      if (image->form != arch_form::ptx && image->cc != virt.cc) {
        error e = errors::not_expressible(
            source_kind::user_input, *image, "cuarch's targets",
            "nvcc builds it from a lower virtual architecture's PTX (arch=), which compiles other "
            "code (__CUDA_ARCH__) than its own; write arch= and code= of one architecture");
        e.partial = true;
        e.position = position;
        return unexpected(e);
      }
      if (!list.add(parsed_target{*image, position, flag.size()}))
        return unexpected(errors::too_many_targets(source_kind::user_input, input));
    }
    if (comma == std::string_view::npos) return {};
    codes.remove_prefix(comma + 1);
  }
}

/// The value of -gencode / --generate-code: comma-separated keyword=value items, arch= and code=
/// once each, in any order, empty items ignored; commas inside [...] belong to the value.
constexpr expected<void, error> add_gencode(parsed_arch_list& list, std::string_view value, std::size_t position,
                                            std::string_view flag, std::string_view input) {
  std::string_view arch_value, code_value;
  bool have_arch = false, have_code = false;
  while (!value.empty()) {
    std::size_t end = value.find(',');
    if (end == std::string_view::npos) end = value.size();
    if (value.substr(0, end).find('[') != std::string_view::npos) {  // a comma inside [...] is the value's
      end = 0;
      for (bool bracket = false; end < value.size() && (bracket || value[end] != ','); ++end)
        bracket = value[end] == '[' || (bracket && value[end] != ']');
    }
    const std::string_view item = value.substr(0, end);
    value.remove_prefix(end < value.size() ? end + 1 : end);
    if (item.empty()) continue;
    const bool is_arch = starts_with(item, "arch="), is_code = starts_with(item, "code=");
    // nvcc: "'sm_86' is not in 'keyword=value' format", "redefinition of keyword 'arch'".
    if ((!is_arch && !is_code) || (is_arch && have_arch) || (is_code && have_code)) return bad_token(flag, position);
    (is_arch ? arch_value : code_value) = item.substr(5);
    (is_arch ? have_arch : have_code) = true;
  }
  if (!have_arch || !have_code) return bad_token(flag, position);
  if (arch_value.size() >= 2 && arch_value.front() == '[' && arch_value.back() == ']')  // nvcc takes arch=[compute_80]
    arch_value = arch_value.substr(1, arch_value.size() - 2);
  const auto virt = quick_prefixed(arch_value, false);
  if (!virt) return unexpected(nvcc_target_error(arch_value, position, flag));
  if (virt->form != arch_form::ptx) return bad_token(flag, position);
  if (!code_value.empty() && code_value.front() == '[') {
    if (code_value.size() < 2 || code_value.back() != ']') return bad_token(flag, position);
    code_value = code_value.substr(1, code_value.size() - 2);
  }
  return add_nvcc_codes(list, code_value, *virt, false, true, position, flag, input);  // lto_: -rdc checked at the end
}

/// -arch=X without -code: the images nvcc embeds for it, as listed above and in that order (nvcc's).
constexpr expected<void, error> add_nvcc_arch(parsed_arch_list& list, const arch_target& a, std::size_t position,
                                              std::string_view flag, std::string_view input) {
  const arch_target v = with_form(a, a.form == arch_form::lto ? arch_form::lto : arch_form::ptx);
  const arch_target base{a.cc, arch_variant::baseline, v.form};
  for (const arch_target& t : {a.form == arch_form::sass ? a : base, base, v})  // add() keeps one of each
    if (!list.add(parsed_target{t, position, flag.size()}))
      return unexpected(errors::too_many_targets(source_kind::user_input, input));
  return {};
}

enum class nvcc_flag : unsigned char { arch, code, gencode, rdc };
struct nvcc_flag_kind {
  std::string_view name;
  nvcc_flag kind;
};
// A word matches a spelling exactly or followed by '=', so no spelling shadows another.
inline constexpr nvcc_flag_kind nvcc_arch_flags[] = {{"-arch", nvcc_flag::arch},
                                                     {"-gencode", nvcc_flag::gencode},
                                                     {"-code", nvcc_flag::code},
                                                     {"--gpu-architecture", nvcc_flag::arch},
                                                     {"--generate-code", nvcc_flag::gencode},
                                                     {"--gpu-code", nvcc_flag::code},
                                                     {"-rdc", nvcc_flag::rdc},
                                                     {"--relocatable-device-code", nvcc_flag::rdc}};

/// A flag word with its value and where it was written.
struct nvcc_value {
  std::string_view word, value;
  std::size_t position = 0;
};

/// Where the word that starts at s[i] ends: the next whitespace, or the end. Eight characters at a
/// time while none is a control character or a space (the words of a flag list run to 40 characters,
/// and a character at a time was a fifth of its cost); then one at a time.
constexpr std::size_t word_end(std::string_view s, std::size_t i) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  if (!__builtin_is_constant_evaluated()) {
    constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (std::uint64_t x = 0; i + 8 <= s.size(); i += 8) {
      std::memcpy(&x, s.data() + i, 8);
      if ((x - ones * 0x21u) & ~x & highs) break;  // some byte is below 0x21 (exact whether any is)
    }
  }
#endif
  while (i < s.size() && (static_cast<unsigned char>(s[i]) > ' ' || !is_space(s[i]))) ++i;
  return i;
}

constexpr expected<void, error> parse_nvcc_flags(parsed_arch_list& list, std::string_view input) {
  if (trim(input).empty()) return unexpected(errors::empty_input(source_kind::user_input, input, 0));
  std::size_t i = 0;
  const auto next_word = [&] {
    while (i < input.size() && is_space(input[i])) ++i;
    const std::size_t start = i;
    i = word_end(input, i);
    return input.substr(start, i - start);
  };
  nvcc_value arch{}, codes[4]{};  // -code words: four are plenty (each takes a list)
  std::size_t code_count = 0;
  arch_target virt{};
  arch_keyword keyword = arch_keyword::none;
  bool rdc = false;  // -rdc=true: code=lto_ is allowed (nvcc_lto_flag)
  for (std::string_view word = next_word(); !word.empty(); word = next_word()) {
    const auto pos = static_cast<std::size_t>(word.data() - input.data());
    const nvcc_flag_kind* flag = nullptr;  // "-architecture" is not -arch
    for (const auto& f : nvcc_arch_flags)
      if (!flag && starts_with(word, f.name) && (word.size() == f.name.size() || word[f.name.size()] == '=')) flag = &f;
    // cuarch reads target flags only: any other word (-O3, a file) is refused, not skipped.
    if (flag == nullptr) return bad_token(word, pos);
    const bool separate = word.size() == flag->name.size();  // "-arch sm_90": the value is the next word
    const std::string_view value = separate ? next_word() : word.substr(flag->name.size() + 1);
    if (separate && value.empty()) return bad_token(word, pos);
    if (flag->kind == nvcc_flag::rdc) {  // the one non-target flag read: LTO IR needs it
      if (value != "true") return bad_token(word, pos);
      rdc = true;
    } else if (flag->kind == nvcc_flag::gencode) {
      const auto r = add_gencode(list, value, pos, word, input);
      if (!r) return r;
    } else if (flag->kind == nvcc_flag::code) {
      if (code_count == std::size(codes)) return unexpected(errors::too_many_targets(source_kind::user_input, input));
      codes[code_count++] = nvcc_value{word, value, pos};
    } else {  // -arch: checked now, the last one kept
      keyword = keyword_of(value);
      if (keyword == arch_keyword::none) {
        const auto t = quick_prefixed(value, false);
        if (!t) return unexpected(nvcc_target_error(value, pos, word));
        virt = *t;
      }
      arch = nvcc_value{word, value, pos};
    }
  }
  for (const auto& t : list)  // nvcc: "Cannot use '-arch=lto_<arch>' unless '-rdc=true' is specified or implied"
    if (!rdc && t.target.form == arch_form::lto) return bad_token(input.substr(t.position, t.length), t.position);
  if (arch.word.empty()) {  // nvcc: "-arch option not specified"
    if (code_count > 0) return bad_token(codes[0].word, codes[0].position);
    if (list.empty()) return unexpected(errors::empty_input(source_kind::user_input, input, 0));  // "-rdc=true" alone
    return {};
  }
  if (keyword != arch_keyword::none) {
    // nvcc refuses -arch=all with -code; it accepts -arch=all with -gencode, which one cuarch list cannot hold.
    if (code_count > 0)
      return unexpected(errors::keyword_not_alone(source_kind::user_input, codes[0].word, codes[0].position));
    if (!list.empty()) return unexpected(errors::keyword_not_alone(source_kind::user_input, arch.word, arch.position));
    list.set_keyword(keyword);
    return {};
  }
  bool any_code = false;
  for (std::size_t c = 0; c < code_count; ++c) any_code = any_code || !codes[c].value.empty();
  if (!any_code) return add_nvcc_arch(list, virt, arch.position, arch.word, input);
  // nvcc: "Value of -arch option ('sm_80') must be a virtual code architecture".
  if (virt.form != arch_form::ptx) return bad_token(arch.word, arch.position);
  for (std::size_t c = 0; c < code_count; ++c) {
    const auto r = add_nvcc_codes(list, codes[c].value, virt, true, rdc, codes[c].position, codes[c].word, input);
    if (!r) return r;
  }
  return {};
}

/// One token of TORCH_CUDA_ARCH_LIST (between single ' ' or ';'), read as PyTorch reads it.
constexpr expected<void, error> add_torch_token(parsed_arch_list& list, std::string_view token, std::size_t position,
                                                std::string_view input) {
  // No token over 24 characters can be valid ("Blackwell+Tegraa+PTX", 11.0a+PTX, is the longest).
  if (const auto quick = quick_torch_entry(token)) return add_targets(list, *quick, position, token.size(), input);
  if (token.size() > 24) return bad_token(token, position);
  text<200> expanded(token);
  if (token.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string_view::npos) {  // names start with a capital
    for (const auto& g : torch_named_generations) {
      std::string_view v = expanded.view();
      if (v.find(g.name) == std::string_view::npos) continue;  // "+PTX" has capitals too: no copies for it
      text<200> replaced;
      for (std::size_t at = 0; (at = v.find(g.name)) != std::string_view::npos; v.remove_prefix(at + g.name.size()))
        replaced.append(v.substr(0, at)).append(g.archs);
      expanded = replaced.append(v);
    }
  }
  std::string_view rest = expanded.view();
  for (;;) {
    const std::size_t semi = rest.find(';');
    const std::string_view entry = rest.substr(0, semi);
    const auto t = parse_arch_token(entry, arch_dialect::torch, position);
    if (!torch_supports(entry)) {
      if (!t) return bad_token(token, position);
      text<200> why("PyTorch 2.15.0 raises ValueError \"Unknown CUDA arch (");
      why.append(entry).append(") or GPU not supported\": its _get_cuda_arch_flags lists no ").append(entry);
      error e = errors::not_expressible(source_kind::user_input, t->items[0], "TORCH_CUDA_ARCH_LIST", why.view());
      e.position = position;
      return unexpected(e);
    }
    if (!t) return unexpected(t.error());
    const auto r = add_targets(list, *t, position, token.size(), input);
    if (!r) return r;
    if (semi == std::string_view::npos) return {};
    rest.remove_prefix(semi + 1);
  }
}

/// Parses `input` into `list` (which the caller owns, so the 3 KB list is never copied); positions
/// are offsets in `input`. TORCH_CUDA_ARCH_LIST is read as PyTorch reads it (torch_named_generations).
constexpr expected<void, error> fill_arch_list(parsed_arch_list& list, std::string_view input, arch_dialect dialect) {
  if (dialect == arch_dialect::nvcc) return parse_nvcc_flags(list, input);
  const bool generic = dialect == arch_dialect::generic, torch = dialect == arch_dialect::torch;
  if (torch && input == "native") {
    list.set_keyword(arch_keyword::native);
    return {};
  }
  if (torch && input.empty()) {  // cuarch's one convention: an empty list is never valid (docs/conformance.md)
    error e = errors::empty_input(source_kind::user_input);
    e.location =
        "TORCH_CUDA_ARCH_LIST; PyTorch reads an empty one as unset and builds for the visible GPUs, as native does";
    return unexpected(e);
  }
  // Leading/trailing whitespace is tolerated in the generic dialect only: CMake keeps it in the first
  // and last entries (" 80;90" fails enable_language(CUDA)), PyTorch reads an empty entry.
  const std::string_view body = generic ? trim(input) : input;
  const std::size_t begin = static_cast<std::size_t>(body.data() - input.data()), end = begin + body.size();
  if (begin == end) return unexpected(errors::empty_input(source_kind::user_input, input, 0));

  // ';' separates entries everywhere; so do ',' and any whitespace in the generic dialect, one ' ' in PyTorch's.
  const auto separator = [&](char c) {
    return c == ';' || (generic && (c == ',' || is_space(c))) || (torch && c == ' ');
  };
  for (std::size_t i = begin;;) {
    std::size_t j = i;
    while (j < end && !separator(input[j])) ++j;
    const std::string_view token = input.substr(i, j - i);
    if (token.empty()) {
      // Generic: runs of spaces are one separator, and so is a ';' or ',' next to one ("8.0 ;9.0"); any
      // other empty entry is an error (PyTorch: "Unknown CUDA arch ()").
      const bool gap = generic && ((j < end && is_space(input[j])) || (i > begin && is_space(input[i - 1])));
      if (!gap) return unexpected(errors::empty_input(source_kind::user_input, input, i));
    } else if (torch) {
      const auto r = add_torch_token(list, token, i, input);
      if (!r) return r;
    } else {
      const arch_keyword k = keyword_of(token);
      if (list.keyword() != arch_keyword::none || (k != arch_keyword::none && !list.empty()))
        return unexpected(errors::keyword_not_alone(source_kind::user_input, token, i));
      if (k != arch_keyword::none) {
        list.set_keyword(k);
      } else {
        const auto t = parse_arch_token(token, dialect, i);
        if (!t) return unexpected(t.error());
        const auto r = add_targets(list, *t, i, token.size(), input);
        if (!r) return r;
      }
    }
    if (j >= end) return {};
    i = j + 1;
  }
}

/// A malformed token's fix in each dialect's own grammar (the generic one, in error::message(), names
/// spellings such as sm_90a and 9.0+PTX that CMake, PyTorch or nvcc would refuse).
inline constexpr std::string_view arch_dialect_fixes[] = {
    "", "write it as PyTorch reads it: 8.6, 9.0a, 9.0+PTX or a name such as Hopper, ';' or one space between entries",
    "write it as CMake reads it: 90, 90a, 100f, 90a-real or 90-virtual, ';' between entries and no spaces",
    "write nvcc flags: -arch=sm_90a, -arch=compute_90 or -gencode=arch=compute_90a,code=sm_90a"};

}  // namespace detail

/// A whole list in the given dialect. An empty list, an empty entry ("8.0;;9.0"), a keyword mixed
/// with targets, or any bad token is an error naming the token and its offset.
constexpr expected<parsed_arch_list, error> parse_arch_list(std::string_view input,
                                                            arch_dialect dialect = arch_dialect::generic) {
  // One named result returned on every path: the list is built in place, never copied.
  expected<parsed_arch_list, error> result(std::in_place);
  if (const auto filled = detail::fill_arch_list(*result, input, dialect); !filled) {
    error e = filled.error();
    if (e.code == errc::malformed_token && e.raw.empty()) e.raw = detail::name_of(detail::arch_dialect_fixes, dialect);
    result = unexpected(e);
  }
  return result;
}

CUARCH_END_NAMESPACE
