// Reading built CUDA code (issue 19): which images a file holds, and which one a device will load.
// Pure: bytes in (memory, or a file read with pread: sources/code_file.hpp), values out; nothing read
// past the bytes given, every length checked before use, nothing thrown; the work bounded by the
// size (code_bytes), whatever the bytes say. The judging reuses compatibility.hpp.
// What the bytes mean (docs/inspect.md has the table) was learnt from nvcc 13.0's own output, checked
// against cuobjdump (scripts/toolkits/record-inspect-corpus.sh, tests/data/inspect/corpus.tsv). A
// fatbin entry: {u16 kind, u16, u32 header size, u64 payload size, ...; @24 u16 minor, @26 u16 major
// of its code version, @28 u32 sm number, @40 u64 flags; compressed: @16 u32 compressed size, @56 u64
// size uncompressed}, the next entry at header size + payload size.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
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

/// Whether an image holds a kernel (what a launch needs): SASS whose cubin has a `.text.<kernel>`
/// section, PTX with an `.entry`. unknown where the bytes were not read (compressed, LTO IR).
enum class kernel_presence : unsigned char { unknown, none, some };
inline constexpr std::string_view kernel_presence_names[] = {"unknown", "none", "some"};
constexpr std::string_view to_string(kernel_presence k) noexcept { return detail::name_of(kernel_presence_names, k); }

/// One image: SASS in a cubin (form sass), PTX (ptx) or LTO IR (lto), for one target.
struct code_image {
  arch_target target{};
  ptx_isa_version version{};  // its code version: the PTX ISA for PTX (9.0), the cubin format for SASS (1.8)
  bool compressed = false;    // stored compressed in the fatbin
  std::uint64_t offset = 0;   // where its header (a fatbin entry) or the file itself starts
  std::uint64_t size = 0;     // its payload as stored, in bytes
  cuda_version built_by{};    // SASS: the CUDA whose ptxas wrote it, as its cubin's .note.nv.tkinfo says ({}: unsaid)
  kernel_presence kernels = kernel_presence::unknown;
};

/// One fatbin (a code object: the driver loads one of its images for the kernels it holds), or the
/// one image of a bare cubin or PTX file.
struct code_object {
  std::uint64_t offset = 0;
  bool relocatable = false;  // from __nv_relfatbin: for the device linker, never loaded as it is
  std::vector<code_image> images;
  // Found in a data section, not .nv_fatbin: code the library hands the driver itself
  // (cuModuleLoadData), picking by architecture, as cuFFT does (docs/inspect.md, "Embedded code").
  bool embedded = false;
};

struct code_listing {
  container_kind kind = container_kind::none;
  std::vector<code_object> objects;
  std::vector<std::string> embedded_in;  // the data sections that hold embedded code objects, in file order
  std::size_t image_count() const noexcept {
    std::size_t n = 0;
    for (const auto& o : objects) n += o.images.size();
    return n;
  }
};

/// The most images one file may list, and the most code objects (fatbins, empty ones counted): a
/// hostile file of a million tiny entries is an error, not a million allocations (PyTorch 2.11's
/// libtorch_cuda.so, the largest known, has 2,789 images).
inline constexpr std::size_t max_code_images = 200000;

/// The machine code whose builder list_code learns. A compressed cubin says which CUDA built it only
/// once decompressed, which costs: all 13,000 of libcublasLt.so.13's took 3.6 s, 100 times its listing.
/// So `inspect` asks only where a verdict can turn on it (the driver-major rule): machine code that a
/// judged device could load, with a driver known to compare the builder with. The default: all of it.
struct builder_wanted {
  bool all = true;
  std::vector<compute_capability> devices;  // all false: the judged devices that have a known driver

  bool operator()(const arch_target& t) const {
    return all ||
           std::any_of(devices.begin(), devices.end(), [&](const compute_capability& d) { return can_load(t, d); });
  }
};

/// Where list_code reads its bytes: memory (list_code(string_view): tests and fuzzers) or a file
/// read with pread (sources/code_file.hpp), never through a mapping, so a file that shrinks while it
/// is read is an error and not a SIGBUS that kills the caller. Every read goes through read(), which
/// bounds the work: the bytes read (zero runs scanned included) are at most 4 times the size plus
/// 1 MiB (each byte is read about twice: as a fatbin, then as the cubin inside it), and the caller's
/// cancel flag is looked at on every read. The first failure sticks: every later read returns it.
class code_bytes {
 public:
  explicit code_bytes(std::uint64_t size, const std::atomic<bool>* cancel = nullptr) noexcept
      : size_(size),
        budget_(size < (std::uint64_t{1} << 60) ? 4 * size + (std::uint64_t{1} << 20) : size),
        cancel_(cancel) {}
  virtual ~code_bytes() = default;
  code_bytes(const code_bytes&) = delete;
  code_bytes& operator=(const code_bytes&) = delete;

  std::uint64_t size() const noexcept { return size_; }
  /// The failure that stopped the reading (the file changed, the budget is spent, cancelled), if any.
  const std::optional<error>& failure() const noexcept { return failure_; }

  /// Bytes [at, at + n), which the caller has checked lie within size(): a view that stays valid
  /// while `buffer` is neither changed nor destroyed, or why they cannot be had.
  expected<std::string_view, error> read(std::uint64_t at, std::size_t n, std::string& buffer) {
    if (!failure_ && cancel_ && cancel_->load(std::memory_order_relaxed))
      failure_ = errors::unreadable_input(source_kind::user_input, {}, {}, "cancelled by the caller while it was read");
    if (!failure_ && n > budget_)
      failure_ = errors::unreadable_input(
          source_kind::user_input, {}, {},
          "reading it would take more than 4 times its size (" + std::to_string(size_) +
              " bytes): its headers name the same bytes over and over; not a plausible CUDA binary");
    if (failure_) return unexpected(*failure_);
    budget_ -= n;
    auto got = fetch(at, n, buffer);
    if (!got) failure_ = got.error();
    return got;
  }

  /// The first offset in [at, end) whose byte is not zero, or end: a hole of a sparse file is
  /// skipped in one step (data_from), other zeros are scanned a block at a time, never byte by byte.
  expected<std::uint64_t, error> skip_zeros(std::uint64_t at, std::uint64_t end) {
    std::string buffer;
    for (std::size_t block = 16; at < end; block = 65536) {                 // the first block: a fatbin header's size
      if (block != 16 && (at = std::max(at, data_from(at))) >= end) break;  // after zeros: a hole in one step
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - at, block));
      auto bytes = read(at, n, buffer);
      if (!bytes) return unexpected(bytes.error());
      if (const std::size_t nz = bytes->find_first_not_of('\0'); nz != std::string_view::npos) return at + nz;
      at += n;
    }
    return end;
  }

 protected:
  /// Bytes [at, at + n) of the source, or the error (a short read: the file changed).
  virtual expected<std::string_view, error> fetch(std::uint64_t at, std::size_t n, std::string& buffer) = 0;
  /// The next offset at or after `at` that may hold data (a file's SEEK_DATA); at itself when unknown.
  virtual std::uint64_t data_from(std::uint64_t at) { return at; }

 private:
  std::uint64_t size_, budget_;
  const std::atomic<bool>* cancel_;
  std::optional<error> failure_;
};

/// Bytes in memory: reads are views into them, nothing copied.
class memory_bytes final : public code_bytes {
 public:
  explicit memory_bytes(std::string_view b, const std::atomic<bool>* cancel = nullptr) noexcept
      : code_bytes(b.size(), cancel), b_(b) {}

 protected:
  expected<std::string_view, error> fetch(std::uint64_t at, std::size_t n, std::string&) override {
    return b_.substr(static_cast<std::size_t>(at), n);
  }

 private:
  std::string_view b_;
};

namespace detail {

inline std::uint64_t le(std::string_view b, std::uint64_t at, unsigned width) noexcept {
  std::uint64_t v = 0;
  for (unsigned i = width; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(at + i)]);
  return v;
}
/// Whether [at, at + n) lies inside b, without overflow.
constexpr bool fits(std::string_view b, std::uint64_t at, std::uint64_t n) noexcept {
  return at <= b.size() && n <= b.size() - at;
}

inline error bad_code(std::uint64_t at, std::string_view why) {
  std::string raw = "at byte " + std::to_string(at) + ": ";
  raw.append(why);
  return errors::unreadable_input(source_kind::user_input, {}, {}, raw);
}

/// A window of a code_bytes: the file, an archive member, a cubin inside a fatbin. Offsets given to
/// it are inside the window; `base` is where the window starts in the file.
struct byte_range {
  code_bytes* src = nullptr;
  std::uint64_t base = 0, size = 0;
  /// Whether [at, at + n) lies inside the window, without overflow.
  constexpr bool fits(std::uint64_t at, std::uint64_t n) const noexcept { return at <= size && n <= size - at; }
  constexpr byte_range sub(std::uint64_t at, std::uint64_t n) const noexcept { return {src, base + at, n}; }
  /// [at, at + n), which the caller has checked fits().
  expected<std::string_view, error> read(std::uint64_t at, std::uint64_t n, std::string& buffer) const {
    return src->read(base + at, static_cast<std::size_t>(n), buffer);
  }
  expected<std::uint64_t, error> skip_zeros(std::uint64_t at, std::uint64_t end) const {
    auto to = src->skip_zeros(base + at, base + end);
    if (!to) return to;
    return *to - base;
  }
};

/// What one list_code carries through its readers: the counts a file may not exceed
/// (max_code_images), over all its fatbins and archive members, and whose builder it learns.
struct code_counts {
  std::size_t images = 0, objects = 0;
  const builder_wanted* wanted = nullptr;
};

inline constexpr std::uint32_t fatbin_magic = 0xBA55ED50u;
inline constexpr std::uint64_t fatbin_flag_compressed = fatbin_flag_lz4 | fatbin_flag_zstd;
inline constexpr std::uint64_t fatbin_flag_arch_specific = 0x100000u, fatbin_flag_family_specific = 0x200000u;

constexpr compute_capability cc_of_sm(std::uint64_t sm) noexcept {
  return {static_cast<int>(sm / 10), static_cast<int>(sm % 10)};
}
/// A 64-bit little-endian ELF file, with room for its header (its first 64 bytes, or more).
constexpr bool is_elf64(std::string_view b) noexcept {
  return b.size() >= 64 && starts_with(b, "\177ELF") && b[4] == 2 && b[5] == 1;
}
/// The ELF header (64 bytes) of the window, when it is a 64-bit little-endian ELF file; empty when
/// it is not, an error only when the bytes cannot be read.
inline expected<std::string_view, error> elf64_header(const byte_range& b, std::string& buffer) {
  if (b.size < 64) return std::string_view();
  auto h = b.read(0, 64, buffer);
  if (h && !is_elf64(*h)) return std::string_view();
  return h;
}
inline std::optional<error> read_cubin(const byte_range& b, std::string_view elf_header, code_listing& out);

/// The release in a .note.nv.tkinfo's text: "Cuda compilation tools, release 13.0, V13.0.88".
inline std::optional<cuda_version> tkinfo_release(std::string_view note) {
  const std::size_t at = note.find(", release ");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = note.substr(at + 10);
  const auto v = parse_cuda_version(rest.substr(0, rest.find(',')));
  return v ? std::optional<cuda_version>(*v) : std::nullopt;
}

/// The CUDA that built a cubin, from the first bytes of it (a compressed one decoded only that far):
/// before ELF ABI 8 its header's e_version (124: 12.4); from ABI 8 on its .note.nv.tkinfo, which ptxas
/// writes before any code (after the string and symbol tables: 1 KB into a small cubin, at most 0.8 MB
/// into the 7.7 MB ones of libcublasLt.so.13), found by the note's own header: name size 12, type 2000,
/// owner "NVIDIA Corp". Nothing when the prefix does not hold it whole.
inline std::optional<cuda_version> builder_in_prefix(std::string_view prefix) {
  if (!is_elf64(prefix) || le(prefix, 0x12, 2) != 190) return std::nullopt;
  if (static_cast<unsigned char>(prefix[8]) < 8) {
    const std::uint64_t release = le(prefix, 0x14, 4);
    if (release >= 10 && release < 1000)
      return cuda_version{static_cast<int>(release / 10), static_cast<int>(release % 10)};
    return std::nullopt;
  }
  static constexpr std::string_view owner("NVIDIA Corp\0", 12);
  for (std::size_t at = prefix.find(owner, 64); at != std::string_view::npos; at = prefix.find(owner, at + 1)) {
    if (at < 12 || le(prefix, at - 12, 4) != 12 || le(prefix, at - 4, 4) != 2000) continue;
    const std::uint64_t desc = le(prefix, at - 8, 4);
    if (desc > prefix.size() - at - 12) return std::nullopt;  // cut off by the prefix's end
    return tkinfo_release(prefix.substr(at + 12, static_cast<std::size_t>(desc)));
  }
  return std::nullopt;
}

/// Copies what a cubin says of itself (read_cubin's image) into the fatbin entry's image that holds it:
/// the CUDA that built it. (Its a/f variant is already the entry flags': they agree on all 44 SASS images
/// of tests/data/inspect and 7,418 of CUDA 13.0's cuSPARSE, cuBLAS and cuBLASLt.)
inline void learn_from_cubin(const code_image& inner, code_image& outer) {
  outer.built_by = inner.built_by;
  outer.kernels = inner.kernels;
}

/// Whether PTX text declares a kernel (`.entry`); a mention in a comment counts too, which only
/// means the code object is judged. `whole`: the text is all of it (else what is not found is unknown).
inline kernel_presence ptx_kernels(std::string_view text, bool whole = true) noexcept {
  return text.find(".entry") != std::string_view::npos ? kernel_presence::some
         : whole                                       ? kernel_presence::none
                                                       : kernel_presence::unknown;
}

/// The most of a PTX image read to find an `.entry` (past it, whether it holds one is unknown).
inline constexpr std::uint64_t max_ptx_scan = std::uint64_t{1} << 20;

/// What the cubin of the SASS entry at `e` (its 64-byte header `eh`, checked by read_fatbins) says of
/// itself, read in place or decompressed first (entry @16: u32 compressed size, unpadded; @56: u64 size
/// uncompressed). Bytes that read as no cubin say nothing and fail nothing; compressed bytes that do not
/// decompress, and a read that fails (the file changed, cancelled), fail the file.
inline std::optional<error> read_entry_cubin(const byte_range& b, std::string_view eh, std::uint64_t e, code_image& img,
                                             std::string& buffer, const builder_wanted& wanted) {
  const std::uint64_t entry_header = le(eh, 4, 4), payload = le(eh, 8, 8);
  const auto learn = [&](const byte_range& cubin) -> std::optional<error> {
    std::string elf_bytes;
    const auto elf = elf64_header(cubin, elf_bytes);
    if (!elf) return elf.error();
    if (code_listing own; !elf->empty() && !read_cubin(cubin, *elf, own))
      learn_from_cubin(own.objects[0].images[0], img);
    return cubin.src->failure();
  };
  const compression c = compression_of_flags(le(eh, 40, 8));
  if (c == compression::none) return learn(b.sub(e + entry_header, payload));
  if (!wanted(img.target)) return std::nullopt;  // its builder cannot change a verdict asked for: not decompressed
  const std::uint64_t stored = le(eh, 16, 4), size = le(eh, 56, 8);
  if (stored > payload)
    return bad_code(
        e, "a compressed image of " + std::to_string(stored) + " bytes in a payload of " + std::to_string(payload));
  const auto packed = b.read(e + entry_header, stored, buffer);
  if (!packed) return packed.error();
  // Decoded only as far as its builder is said (builder_in_prefix): 64 KiB, then 4 times more each
  // time, so at most 4/3 of that prefix is decoded in all; read whole only when it never says.
  std::string cubin;
  for (std::uint64_t want = 65536;; want *= 4) {
    if (auto failed = decompress_prefix(c, *packed, size, want, cubin))
      return bad_code(e + entry_header + failed->at, "a compressed SASS image (" + std::string(to_string(c)) +
                                                         ") that does not decompress: " + failed->what);
    if (const auto v = builder_in_prefix(cubin)) {
      img.built_by = *v;
      return std::nullopt;
    }
    if (cubin.size() >= size) break;
  }
  memory_bytes unpacked(cubin);
  return learn(byte_range{&unpacked, 0, cubin.size()});
}

/// The fatbins that start at `at` in `b` and fill [at, end), back to back (zero padding between
/// them is skipped). Appends to `out`, with offsets in the file.
inline std::optional<error> read_fatbins(const byte_range& b, std::uint64_t at, std::uint64_t end, bool relocatable,
                                         code_listing& out, code_counts& counts) {
  std::string header_bytes, entry_bytes, elf_bytes;
  while (at < end) {
    const auto next = b.skip_zeros(at, end);  // padding to the next fatbin's alignment
    if (!next) return next.error();
    if ((at = *next) >= end) break;
    if (!b.fits(at, 16) || at + 16 > end) return bad_code(at, "a fatbin header runs past the end of its section");
    const auto h = b.read(at, 16, header_bytes);
    if (!h) return h.error();
    if (le(*h, 0, 4) != fatbin_magic) return bad_code(at, "not a fatbin (no magic 0xBA55ED50)");
    const std::uint64_t header = le(*h, 6, 2), size = le(*h, 8, 8);
    if (header < 16 || header > end - at || size > end - at - header)
      return bad_code(at, "the fatbin's size (" + std::to_string(size) + " bytes) runs past the end of its section");
    if (++counts.objects > max_code_images)  // empty fatbins too: each is a code object to keep
      return bad_code(at, "more than " + std::to_string(max_code_images) + " fatbins: not a plausible CUDA binary");
    code_object obj{b.base + at, relocatable, {}};
    std::uint64_t e = at + header;
    const std::uint64_t stop = e + size;
    while (e < stop) {
      if (stop - e < 64) {
        const auto tail = b.skip_zeros(e, stop);
        if (!tail) return tail.error();
        if (*tail >= stop) break;  // a short zero tail is padding
        return bad_code(e, "a fatbin entry header is cut off by the end of its fatbin");
      }
      const auto eh = b.read(e, 64, entry_bytes);
      if (!eh) return eh.error();
      const std::uint64_t kind = le(*eh, 0, 2), entry_header = le(*eh, 4, 4), payload = le(*eh, 8, 8);
      if (entry_header < 64 || entry_header > stop - e)
        return bad_code(e, "a fatbin entry's header size is out of range");
      if (payload > stop - e - entry_header)
        return bad_code(
            e, "a fatbin entry's payload (" + std::to_string(payload) + " bytes) runs past the end of its fatbin");
      if (++counts.images > max_code_images)
        return bad_code(e, "more than " + std::to_string(max_code_images) + " images: not a plausible CUDA binary");
      const std::uint64_t flags = le(*eh, 40, 8), sm = le(*eh, 28, 4);
      if (kind != 1 && kind != 2 && kind != 8)
        return bad_code(e, "a fatbin entry of unknown kind " + std::to_string(kind));
      if (sm == 0 || sm > 1000)
        return bad_code(e, "a fatbin entry names no plausible GPU (sm " + std::to_string(sm) + ")");
      const arch_variant variant = flags & fatbin_flag_arch_specific     ? arch_variant::arch_specific
                                   : flags & fatbin_flag_family_specific ? arch_variant::family_specific
                                                                         : arch_variant::baseline;
      const arch_target t{cc_of_sm(sm), variant,
                          kind == 1   ? arch_form::ptx
                          : kind == 2 ? arch_form::sass
                                      : arch_form::lto};
      const ptx_isa_version version{static_cast<int>(le(*eh, 26, 2)), static_cast<int>(le(*eh, 24, 2))};
      obj.images.push_back(code_image{t, version, (flags & fatbin_flag_compressed) != 0, b.base + e, payload});
      if (kind == 2)  // a cubin names the CUDA that built it, and whether it holds a kernel
        if (auto failed = read_entry_cubin(b, *eh, e, obj.images.back(), elf_bytes, *counts.wanted)) return failed;
      if (kind == 1 && !obj.images.back().compressed) {  // PTX holds a kernel if it has an .entry
        const auto text = b.read(e + entry_header, std::min(payload, max_ptx_scan), elf_bytes);
        if (!text) return text.error();
        obj.images.back().kernels = ptx_kernels(*text, payload <= max_ptx_scan);
      }
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
  std::uint64_t flags = 0;  // sh_flags: SHF_ALLOC (2) is loaded with the file, SHF_EXECINSTR (4) is machine code
  std::uint32_t type = 0;   // sh_type: SHT_PROGBITS (1) holds the program's bytes
};

/// The most of a section name cuarch reads: enough for every name it looks for, and for a message.
inline constexpr std::size_t max_section_name = 256;
inline constexpr std::uint64_t max_section_names = std::uint64_t{1} << 24;

/// Calls f(elf_section) for each section of the ELF64 file b (whose 64-byte header is `elf_header`);
/// an error when its table lies. The section table and the section-name table are read once each.
template <class F>
std::optional<error> for_each_section(const byte_range& b, std::string_view elf_header, F&& f) {
  const std::uint64_t shoff = le(elf_header, 0x28, 8), shentsize = le(elf_header, 0x3a, 2),
                      shnum = le(elf_header, 0x3c, 2), shstrndx = le(elf_header, 0x3e, 2);
  if (shoff == 0 || shnum == 0) return std::nullopt;  // no section table: nothing found
  if (shentsize < 64 || shentsize > 256) return bad_code(0x3a, "the ELF section header size is out of range");
  if (!b.fits(shoff, shentsize * shnum)) return bad_code(shoff, "the ELF section table runs past the end of the file");
  if (shstrndx >= shnum) return bad_code(shoff, "the ELF section-name table index is out of range");
  std::string table_bytes, name_bytes;
  const auto table = b.read(shoff, shentsize * shnum, table_bytes);
  if (!table) return table.error();
  const std::uint64_t names_at = le(*table, shstrndx * shentsize + 24, 8),
                      names_size = le(*table, shstrndx * shentsize + 32, 8);
  if (!b.fits(names_at, names_size))
    return bad_code(names_at, "the ELF section-name table runs past the end of the file");
  // At most 16 MiB of names (65,535 sections of 256-byte names): a section named past that reads as unnamed.
  const auto names = b.read(names_at, std::min<std::uint64_t>(names_size, max_section_names), name_bytes);
  if (!names) return names.error();
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const std::uint64_t s = i * shentsize;
    if (le(*table, s + 4, 4) == 8) continue;  // SHT_NOBITS: no bytes in the file
    const std::uint64_t name = le(*table, s, 4);
    // Bounded: a name without its NUL is not searched to the table's end once per section.
    const std::string_view named = name < names->size() ? names->substr(static_cast<std::size_t>(name), max_section_name)
                                                        : std::string_view();
    const elf_section sec{named.substr(0, named.find('\0')), le(*table, s + 24, 8), le(*table, s + 32, 8),
                          le(*table, s + 8, 8), static_cast<std::uint32_t>(le(*table, s + 4, 4))};
    if (!b.fits(sec.offset, sec.size))
      return bad_code(shoff + s, "ELF section '" + std::string(sec.name) + "' runs past the end of the file");
    if (auto e = f(sec)) return e;
  }
  return std::nullopt;
}

/// The most of a cubin's .nv.compat or .note.nv.tkinfo section read (nvcc writes tens of bytes of
/// one, a few hundred of the other).
inline constexpr std::uint64_t max_note_bytes = 65536;

inline std::optional<error> read_cubin(const byte_range& b, std::string_view elf_header, code_listing& out) {
  code_image img;  // SASS
  img.size = b.size;
  img.kernels = kernel_presence::none;  // until a .text.<kernel> section is seen
  // The sm number: e_flags bits 8-15 from ELF ABI version 8 on (CUDA 12.8+), bits 0-7 before.
  const std::uint64_t flags = le(elf_header, 0x30, 4);
  const bool abi8 = static_cast<unsigned char>(elf_header[8]) >= 8;
  const std::uint64_t sm = (flags >> (abi8 ? 8 : 0)) & 0xff;
  if (sm == 0) return bad_code(0x30, "a cubin whose ELF flags name no GPU");
  img.target.cc = cc_of_sm(sm);
  // `a` in e_flags: 0x800 before ABI 8 (nvcc 12.4, ptxas 12.8 up to sm_90a), 0x8 in ptxas 12.8's ABI 8;
  // nvcc 13.0 says it in .nv.compat instead (below). Each read against cuobjdump's `sm=90a`/`sm=100a`
  // on tests/data/inspect/nvcc-12.4 and ptxas-12.8.
  if (flags & (abi8 ? 0x8u : 0x800u)) img.target.variant = arch_variant::arch_specific;
  // Before ABI 8 the builder is e_version: the release times ten (nvcc 12.4: 124, ptxas 12.8: 128),
  // what cuobjdump prints as toolkit=124; ABI 8 sets it to 1 and says it in .note.nv.tkinfo (below).
  if (const std::uint64_t release = le(elf_header, 0x14, 4); !abi8 && release >= 10 && release < 1000)
    img.built_by = cuda_version{static_cast<int>(release / 10), static_cast<int>(release % 10)};
  // Only the first section of each name is read: a file whose 65,535 sections all name the same
  // bytes as .nv.compat costs one read of them, not 65,535.
  bool compat_read = false, tkinfo_read = false;
  std::string section_bytes;
  auto e = for_each_section(b, elf_header, [&](const elf_section& s) -> std::optional<error> {
    if (starts_with(s.name, ".text."))
      img.kernels = kernel_presence::some;  // nvcc names each kernel's code .text.<name>
    const bool compat = s.name == ".nv.compat" && !compat_read, tkinfo = s.name == ".note.nv.tkinfo" && !tkinfo_read;
    if (!compat && !tkinfo) return std::nullopt;
    const auto read = b.read(s.offset, std::min(s.size, max_note_bytes), section_bytes);
    if (!read) return read.error();
    const std::string_view bytes = *read;
    if (compat) {  // records {u8 format, u8 attribute, value}: 4 bytes, or 4 + u16 size
      compat_read = true;
      for (std::size_t at = 0; at + 4 <= bytes.size();) {
        const unsigned format = static_cast<unsigned char>(bytes[at]),
                       attribute = static_cast<unsigned char>(bytes[at + 1]);
        if (attribute == 9 && format == 2 && bytes[at + 2] == 1) img.target.variant = arch_variant::arch_specific;
        at += format == 4 ? 4 + static_cast<std::size_t>(le(bytes, at + 2, 2)) : 4;
      }
    } else {
      // The producer's version, then its command line: "Cuda compilation tools, release 13.0, V13.0.88
      // ... -arch sm_100f -m 64". Its release built the cubin; its -arch names f.
      tkinfo_read = true;
      if (const auto v = tkinfo_release(bytes)) img.built_by = *v;
      if (img.target.variant == arch_variant::baseline &&
          bytes.find("-arch sm_" + std::to_string(sm) + "f ") != std::string_view::npos)
        img.target.variant = arch_variant::family_specific;
    }
    return std::nullopt;
  });
  if (e) return e;
  out.objects.push_back(code_object{0, false, {img}});
  return std::nullopt;
}

/// The end of the fatbin at `at` in [at, end) if its headers are well formed (magic, version 1, a
/// 16-byte header, entries of a known kind and size for a plausible GPU, filling it but for a zero
/// tail), else nullopt: bytes of a data section that only look like a fatbin's magic.
inline expected<std::optional<std::uint64_t>, error> embedded_fatbin_end(const byte_range& b, std::uint64_t at,
                                                                         std::uint64_t end, std::string& bytes) {
  constexpr std::optional<std::uint64_t> no;
  if (end - at < 16 + 64) return no;
  const auto h = b.read(at, 16, bytes);
  if (!h) return unexpected(h.error());
  const std::uint64_t size = le(*h, 8, 8);
  if (le(*h, 0, 4) != fatbin_magic || le(*h, 4, 2) != 1 || le(*h, 6, 2) != 16 || size < 64 || size > end - at - 16)
    return no;
  const std::uint64_t stop = at + 16 + size;
  for (std::uint64_t e = at + 16; e < stop;) {
    if (stop - e < 64) {  // a short tail: zeros, which read_fatbins skips, or not a fatbin
      if (e == at + 16) return no;
      const auto tail = b.read(e, stop - e, bytes);
      if (!tail) return unexpected(tail.error());
      return tail->find_first_not_of('\0') == std::string_view::npos ? std::optional<std::uint64_t>(stop) : no;
    }
    const auto eh = b.read(e, 64, bytes);
    if (!eh) return unexpected(eh.error());
    const std::uint64_t kind = le(*eh, 0, 2), header = le(*eh, 4, 4), payload = le(*eh, 8, 8), sm = le(*eh, 28, 4);
    if ((kind != 1 && kind != 2 && kind != 8) || header < 64 || header > stop - e || payload > stop - e - header ||
        sm < 10 || sm > 1000)
      return no;
    e += header + payload;
  }
  return std::optional<std::uint64_t>(stop);
}

/// The most of a data section searched for embedded fatbins at one read.
inline constexpr std::uint64_t embedded_scan_block = std::uint64_t{1} << 20;

/// The fatbins embedded in [at, end), a data section's bytes (or the part of it no fatbin section
/// holds): each 8-byte-aligned magic whose headers are well formed (embedded_fatbin_end) is read
/// as a fatbin and marked embedded; the bytes between are searched once, a block at a time, holes
/// skipped. Returns how many were found.
inline expected<std::size_t, error> read_embedded_fatbins(const byte_range& b, std::uint64_t at, std::uint64_t end,
                                                          code_listing& out, code_counts& counts) {
  constexpr std::string_view magic("\x50\xED\x55\xBA", 4);  // fatbin_magic, little-endian
  std::string block_bytes, header_bytes;
  std::size_t found = 0;
  while (end - at >= 16 + 64) {
    const auto data = b.skip_zeros(at, end);  // a hole, or zero padding, in one step
    if (!data) return unexpected(data.error());
    if (end - (at = *data) < 16 + 64) break;  // a magic's first byte is not 0: none is skipped
    const auto block = b.read(at, static_cast<std::size_t>(std::min(end - at, embedded_scan_block)), block_bytes);
    if (!block) return unexpected(block.error());
    std::uint64_t next = at + block->size() - 3;  // a magic cut by the block's end is searched again
    for (std::size_t p = block->find(magic); p != std::string_view::npos; p = block->find(magic, p + 1)) {
      if ((at + p) % 8 != 0) continue;
      const auto stop = embedded_fatbin_end(b, at + p, end, header_bytes);
      if (!stop) return unexpected(stop.error());
      if (!*stop) continue;
      const std::size_t first = out.objects.size();
      if (auto e = read_fatbins(b, at + p, **stop, false, out, counts)) return unexpected(std::move(*e));
      for (std::size_t i = first; i < out.objects.size(); ++i) out.objects[i].embedded = true;
      ++found;
      if (**stop >= at + block->size()) {  // past this block: read on from its end
        next = **stop;
        break;
      }
      p = static_cast<std::size_t>(**stop - at) - 1;  // on in this block, after it
    }
    at = std::max(next, at + 1);
  }
  return found;
}

/// The fatbins of a 64-bit ELF file that is no cubin (.so, executable, object), loadable ones first
/// whatever the section order, as cuobjdump lists them (libnccl.so.2 of CUDA 13.0 has
/// __nv_relfatbin before .nv_fatbin), then those embedded in its data sections (loaded, not
/// executable, outside every fatbin section: read_embedded_fatbins), which cuobjdump does not list.
/// Sections that name the same bytes are read once; fatbin sections that overlap otherwise are an
/// error (a linker never writes either).
inline std::optional<error> read_elf_code(const byte_range& b, std::string_view elf_header, code_listing& out,
                                          code_counts& counts) {
  const std::size_t first = out.objects.size();
  std::map<std::uint64_t, std::uint64_t> read_ranges;         // start -> end of each fatbin section read
  std::vector<std::pair<std::uint64_t, std::uint64_t>> data;  // each data section's [start, end)
  std::vector<std::string> data_names;
  auto e = for_each_section(b, elf_header, [&](const elf_section& s) -> std::optional<error> {
    const bool relocatable = s.name == "__nv_relfatbin";
    if (s.size == 0) return std::nullopt;
    if (s.name != ".nv_fatbin" && !relocatable) {
      if (s.type == 1 && (s.flags & 2) && !(s.flags & 4)) {  // SHT_PROGBITS, SHF_ALLOC, not SHF_EXECINSTR
        data.emplace_back(s.offset, s.offset + s.size);
        data_names.emplace_back(s.name);
      }
      return std::nullopt;
    }
    const std::uint64_t end = s.offset + s.size;
    auto after = read_ranges.lower_bound(s.offset);
    if (after != read_ranges.end() && after->first == s.offset && after->second == end)
      return std::nullopt;  // read already
    if ((after != read_ranges.end() && after->first < end) ||
        (after != read_ranges.begin() && std::prev(after)->second > s.offset))
      return bad_code(s.offset, "ELF section '" + std::string(s.name) + "' overlaps another fatbin section");
    read_ranges.emplace(s.offset, end);
    return read_fatbins(b, s.offset, end, relocatable, out, counts);
  });
  if (e) return e;
  std::stable_partition(out.objects.begin() + static_cast<std::ptrdiff_t>(first), out.objects.end(),
                        [](const code_object& o) { return !o.relocatable; });
  // Each data byte is searched once: sections that overlap (each other, or a fatbin section) are cut
  // to what no earlier one covered, in file order.
  std::vector<std::size_t> order(data.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return data[x] < data[y]; });
  std::uint64_t searched = 0;
  for (const std::size_t i : order) {
    std::uint64_t from = std::max(data[i].first, searched);
    const std::uint64_t to = data[i].second;
    searched = std::max(searched, to);
    // Fatbin sections do not overlap one another (an error above): inside one, go past it; before
    // the next, stop there.
    if (const auto in = read_ranges.upper_bound(from); in != read_ranges.begin() && std::prev(in)->second > from)
      from = std::prev(in)->second;
    const auto next = read_ranges.lower_bound(from);
    const std::uint64_t until = next == read_ranges.end() ? to : std::min(to, next->first);
    if (from >= until) continue;
    const auto found = read_embedded_fatbins(b, from, until, out, counts);
    if (!found) return found.error();
    if (*found != 0 && std::find(out.embedded_in.begin(), out.embedded_in.end(), data_names[i]) == out.embedded_in.end())
      out.embedded_in.push_back(std::move(data_names[i]));  // once per name (archive members repeat theirs)
  }
  return std::nullopt;
}

/// The members of a static library (`ar`: "!<arch>\n", then 60-byte headers whose size is decimal
/// text at byte 48, members padded to even offsets): the ELF objects' fatbins, in member order.
inline std::optional<error> read_archive(const byte_range& b, code_listing& out, code_counts& counts) {
  std::uint64_t at = 8;
  std::string header_bytes, elf_bytes;
  while (at < b.size) {
    if (!b.fits(at, 60)) return bad_code(at, "an archive member header is cut off or malformed");
    const auto read = b.read(at, 60, header_bytes);
    if (!read) return read.error();
    const std::string_view header = *read;
    if (header.substr(58, 2) != "`\n") return bad_code(at, "an archive member header is cut off or malformed");
    std::uint64_t size = 0;
    for (std::size_t i = 48; i < 58 && header[i] != ' '; ++i) {
      if (header[i] < '0' || header[i] > '9') return bad_code(at, "an archive member size that is not a number");
      size = size * 10 + static_cast<std::uint64_t>(header[i] - '0');
    }
    const std::uint64_t data = at + 60;
    if (header[48] == ' ' || !b.fits(data, size))
      return bad_code(at, "an archive member runs past the end of the file");
    // "/", "/SYM64/" and "//" (GNU symbol and long-name tables) hold no code; "/123" is a member
    // whose long name is in "//" (cuda_device_runtime.o in libcudadevrt.a); ELF objects may hold code.
    const bool table = header[0] == '/' && (header[1] == ' ' || header[1] == '/' || header[1] == 'S');
    if (!table) {
      const byte_range member = b.sub(data, size);
      const auto elf = elf64_header(member, elf_bytes);
      if (!elf) return elf.error();
      if (!elf->empty() && le(*elf, 0x12, 2) != 190)
        if (auto e = read_elf_code(member, *elf, out, counts)) {
          if (!b.src->failure())
            e->raw.append(" (in the archive member at byte ").append(std::to_string(at)).append(")");
          return e;
        }
    }
    at = data + size + (size & 1);
  }
  return std::nullopt;
}

}  // namespace detail

/// The CUDA code in `bytes` (a file: sources/code_file.hpp's read_code_file): kind none and no
/// objects for a file without any; unreadable_input naming the byte offset and what is wrong (the
/// caller adds the path) for bytes that claim to be CUDA code but lie (sizes past the end, a million
/// entries, garbage after a fatbin magic), or the reading's own failure (code_bytes::failure()).
inline expected<code_listing, error> list_code(code_bytes& bytes, const builder_wanted& wanted = {}) {
  using detail::le;
  code_listing out;
  detail::code_counts counts;
  counts.wanted = &wanted;
  const detail::byte_range b{&bytes, 0, bytes.size()};
  // A container's kind is said only when code was found in it (a fatbin or cubin always has some).
  const auto read = [&out](std::optional<error> failed, container_kind kind) -> expected<code_listing, error> {
    if (failed) return unexpected(*failed);
    if (!out.objects.empty()) out.kind = kind;
    return std::move(out);
  };
  std::string head_bytes, text_bytes;
  const auto head = b.read(0, std::min<std::uint64_t>(b.size, 64), head_bytes);  // a magic, or the ELF header
  if (!head) return unexpected(head.error());
  if (head->size() >= 16 && le(*head, 0, 4) == detail::fatbin_magic)
    return read(detail::read_fatbins(b, 0, b.size, false, out, counts), container_kind::fatbin);
  if (detail::starts_with(*head, "\177ELF")) {
    if (!detail::is_elf64(*head)) return out;  // only 64-bit little-endian ELF carries CUDA code cuarch reads
    const std::string elf_header(head->substr(0, 64));
    if (le(elf_header, 0x12, 2) == 190)
      return read(detail::read_cubin(b, elf_header, out), container_kind::cubin);  // EM_CUDA: a cubin
    return read(detail::read_elf_code(b, elf_header, out, counts), container_kind::elf);
  }
  if (detail::starts_with(*head, "!<arch>\n"))
    return read(detail::read_archive(b, out, counts), container_kind::archive);
  const auto text = b.read(0, std::min<std::uint64_t>(b.size, 65536),
                           text_bytes);  // PTX's directives, in its first 64 KiB
  if (!text) return unexpected(text.error());
  const std::string_view target = detail::ptx_directive(*text, ".target"),
                         version = detail::ptx_directive(*text, ".version");
  if (!target.empty() && !version.empty()) {
    const auto t = detail::parse_prefixed(target, 0);
    const auto v = parse_ptx_isa_version(version);
    if (!t || !detail::starts_with(target, "sm_"))
      return unexpected(detail::bad_code(0, "PTX text whose .target '" + std::string(target) + "' is not sm_XY[a|f]"));
    if (!v) return unexpected(detail::bad_code(0, "PTX text whose .version '" + std::string(version) + "' is not M.m"));
    out.kind = container_kind::ptx;
    out.objects.push_back(code_object{
        0,
        false,
        {code_image{
            with_form(*t, arch_form::ptx), *v, false, 0, b.size, {}, detail::ptx_kernels(*text, b.size <= 65536)}}});
  }
  return out;
}

/// list_code of bytes in memory (tests, fuzzers, a buffer the caller holds).
inline expected<code_listing, error> list_code(std::string_view b) {
  memory_bytes bytes(b);
  return list_code(bytes);
}

/// Whether a listing holds loadable fatbins (.nv_fatbin), not only relocatable (or embedded) ones.
inline bool has_loadable(const code_listing& l) noexcept {
  return std::any_of(l.objects.begin(), l.objects.end(),
                     [](const code_object& o) { return !o.relocatable && !o.embedded; });
}

/// Whether code object o may hold a kernel: an image holds one, or might (unknown: compressed, LTO
/// IR). An empty fatbin (an nvcc 13.0 executable's .nv_fatbin starts with one), or one whose images
/// all hold none (an nvcc 13.0 -shared library's second fatbin), has nothing a launch could fail on.
inline bool may_launch(const code_object& o) noexcept {
  return std::any_of(o.images.begin(), o.images.end(),
                     [](const code_image& i) { return i.kernels != kernel_presence::none; });
}

/// Whether code object o is judged: a loader sees it (what cuobjdump lists without --all-fatbin: the
/// loadable fatbins when the listing has any, has_loadable(), asked once per listing, else the
/// relocatable ones) and it may hold a kernel (may_launch()). Embedded code objects are judged
/// apart (judge_device): the library picks among them.
inline bool judged(const code_object& o, bool listing_has_loadable) noexcept {
  return !o.embedded && (!o.relocatable || !listing_has_loadable) && may_launch(o);
}

/// Which image of a code object a device loads, or why none does.
struct image_choice {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t image = none;   // index into code_object::images
  bool jit = false;           // PTX the driver compiles
  std::optional<error> why;   // image == none: the reason (the nearest miss's error; unknown_builder when unknown())
  std::size_t unsure = none;  // image == none: machine code that loads only if a CUDA the driver runs built it, unsaid
  bool loads() const noexcept { return image != none; }
  /// Whether the verdict depends on which CUDA built an image, which the file does not say: no
  /// image is known to load, and one would if the driver runs its builder.
  bool unknown() const noexcept { return image == none && unsure != none; }
};

/// The image a driver picks for `device` (the rules of check_loadable): SASS that loads, the
/// nearest compute capability first (arch-specific before family before baseline on a tie); else
/// PTX that loads and, when the driver's release is known, that it can JIT, the newest first; never
/// what a later major built (driver_runs_code_of). LTO IR never loads (it needs the device linker).
inline image_choice choose_image(const code_object& obj, const compute_capability& device,
                                 const std::optional<cuda_version>& driver) {
  image_choice out;
  const auto rank = [](const arch_target& t) {
    return t.cc.sm_number() * 4 + (t.variant == arch_variant::arch_specific     ? 2
                                   : t.variant == arch_variant::family_specific ? 1
                                                                                : 0);
  };
  for (const arch_form form : {arch_form::sass, arch_form::ptx}) {
    for (std::size_t i = 0; i < obj.images.size(); ++i) {
      const code_image& img = obj.images[i];
      if (img.target.form != form) continue;
      auto ok = check_loadable(img.target, device);
      if (ok && form == arch_form::ptx && driver) ok = check_driver_can_jit_isa(img.target, img.version, *driver);
      if (ok && driver && img.built_by.major &&
          !driver_runs_code_of(*driver, img.built_by))  // as resolve --inventory's nodes
        ok = unexpected(
            errors::cannot_load_on_device(source_kind::driver, img.target, device, {}, img.built_by, *driver));
      if (!ok) {
        // Remember the most telling miss: the driver's first refusal (a later major's machine code,
        // which the driver would pick first, else PTX it cannot JIT) beats "wrong device".
        if (!out.why || (ok.error().source == source_kind::driver && out.why->source != source_kind::driver))
          out.why = ok.error();
        continue;
      }
      if (form == arch_form::sass && driver && !img.built_by.major) {  // the driver-major rule cannot be applied
        if (out.unsure == image_choice::none || rank(img.target) > rank(obj.images[out.unsure].target)) out.unsure = i;
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
  if (out.unsure != image_choice::none) {  // nothing known to load; this would, if its builder is one the driver runs
    const code_image& img = obj.images[out.unsure];
    out.why = errors::unknown_builder(
        img.target, device, *driver, newest_known_toolkit(),
        img.compressed ? "its cubin is stored compressed" : "its cubin has no .note.nv.tkinfo");
    return out;
  }
  if (!out.why) {  // no SASS or PTX image at all: LTO IR only (an empty code object is never judged)
    const auto lto = std::find_if(obj.images.begin(), obj.images.end(),
                                  [](const code_image& i) { return i.target.form == arch_form::lto; });
    out.why = errors::cannot_load_on_device(source_kind::none,
                                            lto != obj.images.end() ? lto->target : arch_target{device}, device);
  }
  return out;
}

CUARCH_END_NAMESPACE
