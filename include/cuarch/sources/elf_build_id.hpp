// The GNU build-id of an ELF file: what tells two builds of one release apart (NVRTC wheels 12.4.99
// and 12.4.127 both answer nvrtcVersion 12.4) in the JIT cache key (docs/design.md). Read with a few
// bounded pread()s: the PT_NOTE segments, else the SHT_NOTE sections (the NVRTC wheels are rewritten
// after linking: their PT_NOTE points elsewhere while .note.gnu.build-id keeps NVIDIA's id). A loaded
// library is keyed by its mapped image (loaded_build_id), not by the file at its path now.
#pragma once

#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../core/detail/utf8.hpp"
#include "posix/posix.hpp"
#include "posix/process_lock.hpp"

CUARCH_BEGIN_NAMESPACE

namespace detail {

/// The most one pread of a header table or note area takes.
inline constexpr std::size_t elf_read_cap = 256 * 1024;

inline std::uint64_t elf_le(std::string_view b, std::size_t at, std::size_t width) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = width; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

/// The build-id in a note area (Elf_Nhdr + name + desc, each padded to 4 bytes), or empty.
inline std::string find_gnu_build_id(std::string_view notes) {
  std::size_t at = 0;
  while (notes.size() - at >= 12) {
    const std::uint64_t namesz = elf_le(notes, at, 4), descsz = elf_le(notes, at + 4, 4),
                        type = elf_le(notes, at + 8, 4);
    const std::uint64_t name_at = at + 12, desc_at = name_at + ((namesz + 3) & ~std::uint64_t{3});
    const std::uint64_t next = desc_at + ((descsz + 3) & ~std::uint64_t{3});
    if (namesz > notes.size() || descsz > notes.size() || next > notes.size()) return {};
    constexpr std::uint64_t nt_gnu_build_id = 3;
    if (type == nt_gnu_build_id && namesz == 4 &&
        notes.substr(static_cast<std::size_t>(name_at), 4) == std::string_view("GNU\0", 4) && descsz >= 8 &&
        descsz <= 64)
      return hex_bytes(notes.substr(static_cast<std::size_t>(desc_at), static_cast<std::size_t>(descsz)));
    at = static_cast<std::size_t>(next);
  }
  return {};
}

/// Reads `size` bytes at `offset` (size capped); false when the file is shorter or a read fails.
inline bool pread_exactly(int fd, std::uint64_t offset, std::uint64_t size, std::string& out) {
  if (size > elf_read_cap) return false;
  out.assign(static_cast<std::size_t>(size), '\0');
  std::size_t have = 0;
  while (have < out.size()) {
    const ssize_t got = ::pread(fd, &out[have], out.size() - have, static_cast<off_t>(offset + have));
    if (got > 0) {
      have += static_cast<std::size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return false;
  }
  return true;
}

inline error no_build_id(source_kind src, const std::string& path, std::string_view why) {
  return errors::malformed_output(src, "the GNU build-id of " + path, path, why);
}

}  // namespace detail

/// The GNU build-id of the 64-bit little-endian ELF file at `path`, as lowercase hex
/// ("ee7f0ed564a5c3b4289920424eeda2b1a168fee6"). Errors: file_unreadable (cannot open, not a regular
/// file), malformed_output (not such an ELF file, or it carries no build-id), naming the path.
inline expected<std::string, error> read_elf_build_id(const std::string& path, source_kind src = source_kind::nvrtc) {
  detail::fd_guard fd;
  struct stat st {};
  if (auto e = detail::open_regular_file(path, src, fd, st)) return unexpected(std::move(*e));

  std::string header;
  if (!detail::pread_exactly(fd.fd, 0, 64, header) || header.compare(0, SELFMAG, ELFMAG) != 0)
    return unexpected(detail::no_build_id(src, path, "not an ELF file"));
  if (header[4] != 2 || header[5] != 1)
    return unexpected(detail::no_build_id(src, path, "not a 64-bit little-endian ELF file"));
  using detail::elf_le;
  std::string table, area;
  // The PT_NOTE (4) segments, then the SHT_NOTE (7) sections. Per table: where the ELF header holds
  // its offset, entry size and count; where an entry holds its type and notes' offset (size: at 32).
  struct note_table {
    std::size_t off_at, entsize_at, num_at, type_at, notes_at;
    std::uint64_t type, min_entsize;
  };
  for (const note_table& t : {note_table{0x20, 0x36, 0x38, 0, 8, 4, 56}, note_table{0x28, 0x3a, 0x3c, 4, 24, 7, 64}}) {
    const std::uint64_t off = elf_le(header, t.off_at, 8), entsize = elf_le(header, t.entsize_at, 2),
                        num = elf_le(header, t.num_at, 2);
    if (off == 0 || entsize < t.min_entsize || !detail::pread_exactly(fd.fd, off, entsize * num, table)) continue;
    for (std::uint64_t i = 0; i < num; ++i) {
      const std::size_t e = static_cast<std::size_t>(i * entsize);
      if (elf_le(table, e + t.type_at, 4) != t.type) continue;
      if (!detail::pread_exactly(fd.fd, elf_le(table, e + t.notes_at, 8), elf_le(table, e + 32, 8), area)) continue;
      std::string id = detail::find_gnu_build_id(area);
      if (!id.empty()) return id;
    }
  }
  return unexpected(
      detail::no_build_id(src, path, "no NT_GNU_BUILD_ID note in its PT_NOTE segments or SHT_NOTE sections"));
}

/// The GNU build-id of the loaded object holding `address`, from its mapped image: its PT_NOTE
/// segments, then (a rewritten wheel) the notes in its small read-only PT_LOAD segments. Empty when
/// none is found, or the object is not the file `path` names (a PLT stub in the executable, say).
inline std::string loaded_build_id(const void* address, const std::string& path) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::string id;
  if (!address) return id;
  detail::each_loaded_object([&](const dl_phdr_info& info) {
    const ElfW(Phdr)*const phdrs = info.dlpi_phdr, *const phdrs_end = phdrs + info.dlpi_phnum;
    if (std::none_of(phdrs, phdrs_end, [&](const ElfW(Phdr) & ph) {
          const std::uintptr_t start = info.dlpi_addr + ph.p_vaddr;
          return ph.p_type == PT_LOAD && at >= start && at - start < ph.p_memsz;
        }))
      return false;
    if (!info.dlpi_name || detail::real_path(info.dlpi_name) != detail::real_path(path)) return true;
    const auto area = [&](const ElfW(Phdr) & ph) {
      return std::string_view(reinterpret_cast<const char*>(info.dlpi_addr + ph.p_vaddr),
                              static_cast<std::size_t>(ph.p_memsz));
    };
    const auto mapped = [&](const ElfW(Phdr) & note) {  // inside a PT_LOAD: readable memory
      return std::any_of(phdrs, phdrs_end, [&](const ElfW(Phdr) & ph) {
        return ph.p_type == PT_LOAD && note.p_vaddr >= ph.p_vaddr && note.p_memsz <= ph.p_memsz &&
               note.p_vaddr - ph.p_vaddr <= ph.p_memsz - note.p_memsz;
      });
    };
    for (const ElfW(Phdr)* ph = phdrs; ph != phdrs_end && id.empty(); ++ph)
      if (ph->p_type == PT_NOTE && mapped(*ph)) id = detail::find_gnu_build_id(area(*ph));
    for (const ElfW(Phdr)* ph = phdrs; ph != phdrs_end && id.empty(); ++ph) {
      if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) != 0 || ph->p_memsz > detail::elf_read_cap) continue;
      const std::string_view seg = area(*ph);  // notes are 4-byte aligned: try each such offset
      for (std::size_t i = (4 - (info.dlpi_addr + ph->p_vaddr) % 4) % 4; i + 16 <= seg.size() && id.empty(); i += 4)
        if (seg.compare(i + 8, 8, std::string_view("\3\0\0\0GNU\0", 8)) == 0)
          id = detail::find_gnu_build_id(seg.substr(i));
    }
    return true;
  });
  return id;
}

CUARCH_END_NAMESPACE
