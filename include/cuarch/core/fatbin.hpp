// Reading built CUDA code (issue 19): which images a file holds, and which one a device will load.
// Pure: bytes in (a mapped file, see sources/code_file.hpp), values out; nothing read past the bytes
// given, every length checked before use, nothing thrown. The judging reuses compatibility.hpp.
// What the bytes mean (docs/inspect.md has the table) was learnt from nvcc 13.0's own output, checked
// against cuobjdump (scripts/toolkits/record-inspect-corpus.sh, tests/data/inspect/corpus.tsv). A
// fatbin entry: {u16 kind, u16, u32 header size, u64 payload size, ...; @24 u16 minor, @26 u16 major
// of its code version, @28 u32 sm number, @40 u64 flags; compressed: @16 u32 compressed size, @56 u64
// size uncompressed}, the next entry at header size + payload size.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch.hpp"
#include "compatibility.hpp"
#include "config.hpp"
#include "cuda_version.hpp"
#include "decode.hpp"
#include "decompress.hpp"
#include "error.hpp"
#include "expected.hpp"
#include "parse.hpp"

CUARCH_BEGIN_NAMESPACE

/// What a file is, as far as CUDA code goes.
enum class container_kind : unsigned char { none, elf, fatbin, cubin, ptx, archive };
inline constexpr std::string_view container_kind_names[] = {"none", "elf", "fatbin", "cubin", "ptx", "archive"};
constexpr std::string_view to_string(container_kind k) noexcept { return detail::name_of(container_kind_names, k); }

/// One image: SASS in a cubin (form sass), PTX (ptx) or LTO IR (lto), for one target.
struct code_image {
  arch_target target{};
  ptx_isa_version version{};  // its code version: the PTX ISA for PTX (9.0), the cubin format for SASS (1.8)
  bool compressed = false;    // stored compressed in the fatbin
  std::uint64_t offset = 0;   // where its header (a fatbin entry) or the file itself starts
  std::uint64_t size = 0;     // its payload as stored, in bytes
  cuda_version built_by{};    // SASS: the CUDA whose ptxas wrote it, as its cubin's .note.nv.tkinfo says ({}: unsaid)
};

/// One fatbin (a code object: the driver loads one of its images for the kernels it holds), or the
/// one image of a bare cubin or PTX file.
struct code_object {
  std::uint64_t offset = 0;
  bool relocatable = false;  // from __nv_relfatbin: for the device linker, never loaded as it is
  std::vector<code_image> images;
};

struct code_listing {
  container_kind kind = container_kind::none;
  std::vector<code_object> objects;
  std::size_t image_count() const noexcept {
    std::size_t n = 0;
    for (const auto& o : objects) n += o.images.size();
    return n;
  }
};

/// The most images one file may list: a hostile file of a million tiny entries is an error, not a
/// million allocations (PyTorch 2.11's libtorch_cuda.so, the largest known, has 2,789).
inline constexpr std::size_t max_code_images = 200000;

namespace detail {

inline std::uint64_t le(std::string_view b, std::uint64_t at, unsigned width) noexcept {
  std::uint64_t v = 0;
  for (unsigned i = width; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(at + i)]);
  return v;
}
/// Whether [at, at + n) lies inside b, without overflow.
constexpr bool fits(std::string_view b, std::uint64_t at, std::uint64_t n) noexcept { return at <= b.size() && n <= b.size() - at; }

inline error bad_code(std::uint64_t at, std::string_view why) {
  std::string raw = "at byte " + std::to_string(at) + ": ";
  raw.append(why);
  return errors::unreadable_input(source_kind::user_input, {}, {}, raw);
}

inline constexpr std::uint32_t fatbin_magic = 0xBA55ED50u;
inline constexpr std::uint64_t fatbin_flag_compressed = fatbin_flag_lz4 | fatbin_flag_zstd;
inline constexpr std::uint64_t fatbin_flag_arch_specific = 0x100000u, fatbin_flag_family_specific = 0x200000u;

constexpr compute_capability cc_of_sm(std::uint64_t sm) noexcept { return {static_cast<int>(sm / 10), static_cast<int>(sm % 10)}; }
/// A 64-bit little-endian ELF file, with room for its header.
constexpr bool is_elf64(std::string_view b) noexcept { return b.size() >= 64 && starts_with(b, "\177ELF") && b[4] == 2 && b[5] == 1; }
inline std::optional<error> read_cubin(std::string_view b, code_listing& out);

/// Copies what a cubin says of itself (read_cubin's image) into the fatbin entry's image that holds it:
/// the CUDA that built it. (Its a/f variant is already the entry flags': they agree on all 44 SASS images
/// of tests/data/inspect and 7,418 of CUDA 13.0's cuSPARSE, cuBLAS and cuBLASLt.)
inline void learn_from_cubin(const code_image& inner, code_image& outer) { outer.built_by = inner.built_by; }

/// The cubin of the fatbin entry at `e` in b (one read_fatbins has checked): its payload, decompressed
/// into `storage` when stored compressed (entry @16: u32 compressed size, unpadded; @56: u64 size
/// uncompressed). An error when compressed bytes do not decompress.
inline std::optional<error> entry_cubin(std::string_view b, std::uint64_t e, std::string& storage, std::string_view& cubin) {
  if (!fits(b, e, 64)) return bad_code(e, "a fatbin entry header is cut off");
  const std::uint64_t entry_header = le(b, e + 4, 4), payload = le(b, e + 8, 8);
  if (entry_header < 64 || !fits(b, e + entry_header, payload)) return bad_code(e, "a fatbin entry runs past the end of the file");
  cubin = b.substr(static_cast<std::size_t>(e + entry_header), static_cast<std::size_t>(payload));
  const compression c = compression_of_flags(le(b, e + 40, 8));
  if (c == compression::none) return std::nullopt;
  const std::uint64_t stored = le(b, e + 16, 4), size = le(b, e + 56, 8);
  if (stored > payload)
    return bad_code(e, "a compressed image of " + std::to_string(stored) + " bytes in a payload of " + std::to_string(payload));
  if (auto failed = decompress(c, cubin.substr(0, static_cast<std::size_t>(stored)), size, storage))
    return bad_code(e + entry_header + failed->at,
                    "a compressed SASS image (" + std::string(to_string(c)) + ") that does not decompress: " + failed->what);
  cubin = storage;
  return std::nullopt;
}

/// What the cubin of the SASS entry at `e` says of itself. Bytes that read as no cubin say nothing
/// and fail nothing; compressed bytes that do not decompress are an error.
inline std::optional<error> read_entry_cubin(std::string_view b, std::uint64_t e, code_image& img) {
  std::string storage;
  std::string_view cubin;
  if (auto failed = entry_cubin(b, e, storage, cubin)) return failed;
  if (code_listing own; is_elf64(cubin) && !read_cubin(cubin, own)) learn_from_cubin(own.objects[0].images[0], img);
  return std::nullopt;
}

/// The fatbins that start at `at` in `b` and fill [at, end), back to back (zero padding between
/// them is skipped). Appends to `out`, with offsets `base` + offsets in b.
inline std::optional<error> read_fatbins(std::string_view b, std::uint64_t at, std::uint64_t end, bool relocatable, code_listing& out,
                                         std::size_t& images, std::uint64_t base = 0) {
  while (at < end) {
    if (b[static_cast<std::size_t>(at)] == 0) {  // padding to the next fatbin's alignment
      ++at;
      continue;
    }
    if (!fits(b, at, 16) || at + 16 > end) return bad_code(at, "a fatbin header runs past the end of its section");
    if (le(b, at, 4) != fatbin_magic) return bad_code(at, "not a fatbin (no magic 0xBA55ED50)");
    const std::uint64_t header = le(b, at + 6, 2), size = le(b, at + 8, 8);
    if (header < 16 || header > end - at || size > end - at - header)
      return bad_code(at, "the fatbin's size (" + std::to_string(size) + " bytes) runs past the end of its section");
    code_object obj{base + at, relocatable, {}};
    std::uint64_t e = at + header;
    const std::uint64_t stop = e + size;
    while (e < stop) {
      if (stop - e < 64) {
        if (b.find_first_not_of('\0', static_cast<std::size_t>(e)) >= stop) break;  // a short zero tail is padding
        return bad_code(e, "a fatbin entry header is cut off by the end of its fatbin");
      }
      const std::uint64_t kind = le(b, e, 2), entry_header = le(b, e + 4, 4), payload = le(b, e + 8, 8);
      if (entry_header < 64 || entry_header > stop - e) return bad_code(e, "a fatbin entry's header size is out of range");
      if (payload > stop - e - entry_header)
        return bad_code(e, "a fatbin entry's payload (" + std::to_string(payload) + " bytes) runs past the end of its fatbin");
      if (++images > max_code_images)
        return bad_code(e, "more than " + std::to_string(max_code_images) + " images: not a plausible CUDA binary");
      const std::uint64_t flags = le(b, e + 40, 8), sm = le(b, e + 28, 4);
      if (kind != 1 && kind != 2 && kind != 8) return bad_code(e, "a fatbin entry of unknown kind " + std::to_string(kind));
      if (sm == 0 || sm > 1000) return bad_code(e, "a fatbin entry names no plausible GPU (sm " + std::to_string(sm) + ")");
      const arch_variant variant = flags & fatbin_flag_arch_specific     ? arch_variant::arch_specific
                                   : flags & fatbin_flag_family_specific ? arch_variant::family_specific
                                                                         : arch_variant::baseline;
      const arch_target t{cc_of_sm(sm), variant, kind == 1 ? arch_form::ptx : kind == 2 ? arch_form::sass : arch_form::lto};
      const ptx_isa_version version{static_cast<int>(le(b, e + 26, 2)), static_cast<int>(le(b, e + 24, 2))};
      obj.images.push_back(code_image{t, version, (flags & fatbin_flag_compressed) != 0, base + e, payload});
      if (kind == 2)
        if (auto failed = read_entry_cubin(b, e, obj.images.back())) return failed;
      e += entry_header + payload;
    }
    out.objects.push_back(std::move(obj));
    at = stop;
  }
  return std::nullopt;
}

/// The text after `key` on the line that starts with it (".target" -> "sm_90a"), up to a space,
/// comma or line end; empty when no line within the first 64 KiB starts with it.
inline std::string_view ptx_directive(std::string_view text, std::string_view key) noexcept {
  text = text.substr(0, 65536);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, eol - at);
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (starts_with(line, key) && line.size() > key.size() && (line[key.size()] == ' ' || line[key.size()] == '\t')) {
      line.remove_prefix(std::min(line.find_first_not_of(" \t", key.size()), line.size()));
      return line.substr(0, line.find_first_of(" \t,\r/"));
    }
    at = eol + 1;
  }
  return {};
}

struct elf_section {
  std::string_view name;
  std::uint64_t offset = 0, size = 0;
};

/// Calls f(elf_section) for each section of the ELF64 file b; an error when its table lies.
template <class F>
std::optional<error> for_each_section(std::string_view b, F&& f) {
  const std::uint64_t shoff = le(b, 0x28, 8), shentsize = le(b, 0x3a, 2), shnum = le(b, 0x3c, 2), shstrndx = le(b, 0x3e, 2);
  if (shoff == 0 || shnum == 0) return std::nullopt;  // no section table: nothing found
  if (shentsize < 64 || !fits(b, shoff, shentsize * shnum))
    return bad_code(shoff, "the ELF section table runs past the end of the file");
  if (shstrndx >= shnum) return bad_code(shoff, "the ELF section-name table index is out of range");
  const std::uint64_t names_at = le(b, shoff + shstrndx * shentsize + 24, 8), names_size = le(b, shoff + shstrndx * shentsize + 32, 8);
  if (!fits(b, names_at, names_size)) return bad_code(names_at, "the ELF section-name table runs past the end of the file");
  const std::string_view names = b.substr(static_cast<std::size_t>(names_at), static_cast<std::size_t>(names_size));
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t s = shoff + i * shentsize;
    if (le(b, s + 4, 4) == 8) continue;  // SHT_NOBITS: no bytes in the file
    const std::uint64_t name = le(b, s, 4);
    const std::string_view named = name < names.size() ? names.substr(static_cast<std::size_t>(name)) : std::string_view();
    const elf_section sec{named.substr(0, named.find('\0')), le(b, s + 24, 8), le(b, s + 32, 8)};
    if (!fits(b, sec.offset, sec.size))
      return bad_code(s, "ELF section '" + std::string(sec.name) + "' runs past the end of the file");
    if (auto e = f(sec)) return e;
  }
  return std::nullopt;
}

inline std::optional<error> read_cubin(std::string_view b, code_listing& out) {
  code_image img;  // SASS
  img.size = b.size();
  // The sm number: e_flags bits 8-15 from ELF ABI version 8 on (CUDA 12.8+), bits 0-7 before.
  const std::uint64_t flags = le(b, 0x30, 4);
  const bool abi8 = static_cast<unsigned char>(b[8]) >= 8;
  const std::uint64_t sm = (flags >> (abi8 ? 8 : 0)) & 0xff;
  if (sm == 0) return bad_code(0x30, "a cubin whose ELF flags name no GPU");
  img.target.cc = cc_of_sm(sm);
  // `a` in e_flags: 0x800 before ABI 8 (nvcc 12.4, ptxas 12.8 up to sm_90a), 0x8 in ptxas 12.8's ABI 8;
  // nvcc 13.0 says it in .nv.compat instead (below). Each read against cuobjdump's `sm=90a`/`sm=100a`
  // on tests/data/inspect/nvcc-12.4 and ptxas-12.8.
  if (flags & (abi8 ? 0x8u : 0x800u)) img.target.variant = arch_variant::arch_specific;
  // Before ABI 8 the builder is e_version: the release times ten (nvcc 12.4: 124, ptxas 12.8: 128),
  // what cuobjdump prints as toolkit=124; ABI 8 sets it to 1 and says it in .note.nv.tkinfo (below).
  if (const std::uint64_t release = le(b, 0x14, 4); !abi8 && release >= 10 && release < 1000)
    img.built_by = cuda_version{static_cast<int>(release / 10), static_cast<int>(release % 10)};
  auto e = for_each_section(b, [&](const elf_section& s) -> std::optional<error> {
    const std::string_view bytes = b.substr(static_cast<std::size_t>(s.offset), static_cast<std::size_t>(s.size));
    if (s.name == ".nv.compat") {  // records {u8 format, u8 attribute, value}: 4 bytes, or 4 + u16 size
      for (std::size_t at = 0; at + 4 <= bytes.size();) {
        const unsigned format = static_cast<unsigned char>(bytes[at]), attribute = static_cast<unsigned char>(bytes[at + 1]);
        if (attribute == 9 && format == 2 && bytes[at + 2] == 1) img.target.variant = arch_variant::arch_specific;
        at += format == 4 ? 4 + static_cast<std::size_t>(le(bytes, at + 2, 2)) : 4;
      }
    } else if (s.name == ".note.nv.tkinfo") {
      // The producer's version, then its command line: "Cuda compilation tools, release 13.0, V13.0.88
      // ... -arch sm_100f -m 64". Its release built the cubin; its -arch names f.
      if (const std::size_t at = bytes.find(", release "); at != std::string_view::npos)
        if (const auto v = parse_cuda_version(bytes.substr(at + 10, bytes.substr(at + 10).find(',')))) img.built_by = *v;
      if (img.target.variant == arch_variant::baseline && bytes.find("-arch sm_" + std::to_string(sm) + "f ") != std::string_view::npos)
        img.target.variant = arch_variant::family_specific;
    }
    return std::nullopt;
  });
  if (e) return e;
  out.objects.push_back(code_object{0, false, {img}});
  return std::nullopt;
}

/// The fatbins of a 64-bit ELF file that is no cubin (.so, executable, object), loadable ones first
/// whatever the section order, as cuobjdump lists them (libnccl.so.2 of CUDA 13.0 has
/// __nv_relfatbin before .nv_fatbin). Offsets are `base` + offsets in b.
inline std::optional<error> read_elf_code(std::string_view b, std::uint64_t base, code_listing& out, std::size_t& images) {
  const std::size_t first = out.objects.size();
  auto e = for_each_section(b, [&](const elf_section& s) -> std::optional<error> {
    const bool relocatable = s.name == "__nv_relfatbin";
    if (s.name != ".nv_fatbin" && !relocatable) return std::nullopt;
    return read_fatbins(b, s.offset, s.offset + s.size, relocatable, out, images, base);
  });
  if (!e)
    std::stable_partition(out.objects.begin() + static_cast<std::ptrdiff_t>(first), out.objects.end(),
                          [](const code_object& o) { return !o.relocatable; });
  return e;
}

/// The members of a static library (`ar`: "!<arch>\n", then 60-byte headers whose size is decimal
/// text at byte 48, members padded to even offsets): the ELF objects' fatbins, in member order.
inline std::optional<error> read_archive(std::string_view b, code_listing& out, std::size_t& images) {
  std::uint64_t at = 8;
  while (at < b.size()) {
    if (!fits(b, at, 60) || b.substr(static_cast<std::size_t>(at) + 58, 2) != "`\n")
      return bad_code(at, "an archive member header is cut off or malformed");
    const std::string_view header = b.substr(static_cast<std::size_t>(at), 60);
    std::uint64_t size = 0;
    for (std::size_t i = 48; i < 58 && header[i] != ' '; ++i) {
      if (header[i] < '0' || header[i] > '9') return bad_code(at, "an archive member size that is not a number");
      size = size * 10 + static_cast<std::uint64_t>(header[i] - '0');
    }
    const std::uint64_t data = at + 60;
    if (header[48] == ' ' || !fits(b, data, size)) return bad_code(at, "an archive member runs past the end of the file");
    const std::string_view member = b.substr(static_cast<std::size_t>(data), static_cast<std::size_t>(size));
    // "/", "/SYM64/" and "//" (GNU symbol and long-name tables) hold no code; "/123" is a member
    // whose long name is in "//" (cuda_device_runtime.o in libcudadevrt.a); ELF objects may hold code.
    const bool table = header[0] == '/' && (header[1] == ' ' || header[1] == '/' || header[1] == 'S');
    if (!table && is_elf64(member) && le(member, 0x12, 2) != 190)
      if (auto e = read_elf_code(member, data, out, images)) {
        e->raw.append(" (in the archive member at byte ").append(std::to_string(at)).append(")");
        return e;
      }
    at = data + size + (size & 1);
  }
  return std::nullopt;
}

}  // namespace detail

/// The CUDA code in a file's bytes: kind none and no objects for a file without any; unreadable_input
/// naming the byte offset and what is wrong (the caller adds the path) for bytes that claim to be
/// CUDA code but lie (sizes past the end, a million entries, garbage after a fatbin magic).
inline expected<code_listing, error> list_code(std::string_view b) {
  using detail::le;
  code_listing out;
  std::size_t images = 0;
  // A container's kind is said only when code was found in it (a fatbin or cubin always has some).
  const auto read = [&out](std::optional<error> failed, container_kind kind) -> expected<code_listing, error> {
    if (failed) return unexpected(*failed);
    if (!out.objects.empty()) out.kind = kind;
    return std::move(out);
  };
  if (b.size() >= 16 && le(b, 0, 4) == detail::fatbin_magic)
    return read(detail::read_fatbins(b, 0, b.size(), false, out, images), container_kind::fatbin);
  if (detail::starts_with(b, "\177ELF")) {
    if (!detail::is_elf64(b)) return out;  // only 64-bit little-endian ELF carries CUDA code cuarch reads
    if (le(b, 0x12, 2) == 190) return read(detail::read_cubin(b, out), container_kind::cubin);  // EM_CUDA: a cubin
    return read(detail::read_elf_code(b, 0, out, images), container_kind::elf);
  }
  if (detail::starts_with(b, "!<arch>\n")) return read(detail::read_archive(b, out, images), container_kind::archive);
  const std::string_view target = detail::ptx_directive(b, ".target"), version = detail::ptx_directive(b, ".version");
  if (!target.empty() && !version.empty()) {
    const auto t = detail::parse_prefixed(target, 0);
    const auto v = parse_ptx_isa_version(version);
    if (!t || !detail::starts_with(target, "sm_"))
      return unexpected(detail::bad_code(0, "PTX text whose .target '" + std::string(target) + "' is not sm_XY[a|f]"));
    if (!v) return unexpected(detail::bad_code(0, "PTX text whose .version '" + std::string(version) + "' is not M.m"));
    out.kind = container_kind::ptx;
    out.objects.push_back(code_object{0, false, {code_image{with_form(*t, arch_form::ptx), *v, false, 0, b.size()}}});
  }
  return out;
}

/// Whether a listing holds loadable fatbins (.nv_fatbin), not only relocatable ones.
inline bool has_loadable(const code_listing& l) noexcept {
  return std::any_of(l.objects.begin(), l.objects.end(), [](const code_object& o) { return !o.relocatable; });
}

/// Whether a loader sees code object o (what cuobjdump lists without --all-fatbin): the loadable
/// fatbins when the listing has any (has_loadable(), asked once per listing), else the relocatable ones.
constexpr bool judged(const code_object& o, bool listing_has_loadable) noexcept { return !o.relocatable || !listing_has_loadable; }

/// Which image of a code object a device loads, or why none does.
struct image_choice {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t image = none;  // index into code_object::images
  bool jit = false;          // PTX the driver compiles
  std::optional<error> why;  // image == none: the reason (the nearest miss's error)
  bool loads() const noexcept { return image != none; }
};

/// The image a driver picks for `device` (the rules of check_loadable): SASS that loads, the
/// nearest compute capability first (arch-specific before family before baseline on a tie); else
/// PTX that loads and, when the driver's release is known, that it can JIT, the newest first; never
/// what a later major built (driver_runs_code_of). LTO IR never loads (it needs the device linker).
inline image_choice choose_image(const code_object& obj, const compute_capability& device, const std::optional<cuda_version>& driver) {
  image_choice out;
  const auto rank = [](const arch_target& t) {
    return t.cc.sm_number() * 4 + (t.variant == arch_variant::arch_specific ? 2 : t.variant == arch_variant::family_specific ? 1 : 0);
  };
  for (const arch_form form : {arch_form::sass, arch_form::ptx}) {
    for (std::size_t i = 0; i < obj.images.size(); ++i) {
      const code_image& img = obj.images[i];
      if (img.target.form != form) continue;
      auto ok = check_loadable(img.target, device);
      if (ok && form == arch_form::ptx && driver) ok = check_driver_can_jit_isa(img.target, img.version, *driver);
      if (ok && driver && img.built_by.major && !driver_runs_code_of(*driver, img.built_by))  // as resolve --inventory's nodes
        ok = unexpected(errors::cannot_load_on_device(source_kind::driver, img.target, device, {}, img.built_by, *driver));
      if (!ok) {
        // Remember the most telling miss: the driver's refusal (JIT, or a later major) beats "wrong device".
        if (!out.why || ok.error().source == source_kind::driver) out.why = ok.error();
        continue;
      }
      if (out.image == image_choice::none || rank(img.target) > rank(obj.images[out.image].target)) out.image = i;
    }
    if (out.loads()) {
      out.jit = form == arch_form::ptx;
      out.why.reset();
      return out;
    }
  }
  if (!out.why)  // no SASS or PTX image at all (LTO IR only, or empty)
    out.why = errors::cannot_load_on_device(source_kind::none, arch_target{device, arch_variant::baseline, arch_form::sass}, device);
  return out;
}

CUARCH_END_NAMESPACE
