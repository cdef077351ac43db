// `cuarch inspect` and cuarch.inspect(): will a built file load on these devices under this driver?
// Per code object (core/fatbin.hpp, choose_image), summarised per file and device, with the fix;
// and the cuarch.inspect/1 document (docs/json.md, docs/inspect.md). Pure: the caller reads the
// files (sources/code_file.hpp) and names the devices and the driver.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../core/arch.hpp"
#include "../core/config.hpp"
#include "../core/detail/json.hpp"
#include "../core/error.hpp"
#include "../core/expected.hpp"
#include "../core/fatbin.hpp"
#include "../core/inventory.hpp"
#include "../core/observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// Code objects that fail on one device for one reason, alike: the same targets, the same cause; or
/// (device_verdict::unknown) whose verdict depends on which CUDA built their machine code.
struct failing_group {
  std::vector<arch_target> targets;  // what each of them holds (SASS and PTX; LTO IR is never loaded)
  std::size_t count = 0;
  error why{};  // the reason of the first one
};

/// What a device does with a file: every code object known to load (loads); code for the device
/// beside code objects only for other architectures (dispatches: a library that picks its kernels
/// by architecture, as cuBLAS and cuFFT do; which kernel a caller launches is not in the file, so
/// nothing here says one fails); what is proved not to run (cannot_load: no code object has an
/// image for the device, a single one has none, or one fails for the driver rather than the
/// architecture); or none known to fail, but some load only if the driver runs the CUDA that built
/// them, which the file does not say (unknown). With embedded code objects (code_object::embedded)
/// and none for the device: no_code_found, not proof that it cannot run, since the library may
/// find code elsewhere.
enum class load_verdict : unsigned char { loads, cannot_load, unknown, dispatches, no_code_found };
inline constexpr std::string_view load_verdict_names[] = {"loads", "cannot_load", "unknown", "dispatches",
                                                          "no_code_found"};
constexpr std::string_view to_string(load_verdict v) noexcept { return detail::name_of(load_verdict_names, v); }

/// One device against one file.
struct device_verdict {
  device_info device{};
  std::size_t judged = 0;         // code objects a loader sees (judged(): relocatable ones only in an object file)
  std::size_t by_sass = 0;        // of those, loaded as machine code
  std::size_t by_ptx_jit = 0;     // loaded by JIT-compiling PTX
  std::size_t embedded = 0;       // embedded code objects that may hold a kernel (judged apart: the library picks)
  std::size_t embedded_here = 0;  // of those, with an image that loads here
  std::vector<failing_group> failing;
  std::vector<failing_group> unknown;  // not failing, not known to load: built by an unknown CUDA (errc::unknown_builder)
  std::vector<std::size_t> choice;  // per code object of the listing: the image index it loads, or image_choice::none

  static std::size_t count_of(const std::vector<failing_group>& groups) noexcept {
    std::size_t n = 0;
    for (const auto& g : groups) n += g.count;
    return n;
  }
  std::size_t failed() const noexcept { return count_of(failing); }
  std::size_t unknowns() const noexcept { return count_of(unknown); }
  /// Known to load: every code object judged (and every embedded one) has an image the rules say loads.
  bool loads() const noexcept { return failing.empty() && unknown.empty() && embedded_here == embedded; }
  load_verdict verdict() const noexcept {
    if (loads()) return load_verdict::loads;
    if (by_sass + by_ptx_jit + embedded_here == 0) {  // nothing known to load here
      if (embedded == 0 && !failing.empty()) return load_verdict::cannot_load;
      return unknown.empty() ? load_verdict::no_code_found : load_verdict::unknown;
    }
    const auto for_other_archs = [](const failing_group& g) { return g.why.code == errc::cannot_load_on_device; };
    if (!std::all_of(failing.begin(), failing.end(), for_other_archs)) return load_verdict::cannot_load;
    return failing.empty() && embedded_here == embedded ? load_verdict::unknown : load_verdict::dispatches;
  }
  /// Nothing found against it: it loads, or it is a library that holds code for this device.
  bool fine() const noexcept {
    const load_verdict v = verdict();
    return v == load_verdict::loads || v == load_verdict::dispatches;
  }
};

/// One file: what it holds, and per device whether it loads.
struct file_verdict {
  std::string path;
  std::optional<error> unreadable;  // the file could not be read, or its CUDA code is malformed (exit 2)
  code_listing listing;
  std::vector<device_verdict> devices;

  bool has_code() const noexcept { return !listing.objects.empty(); }
  bool fine_everywhere() const noexcept {
    return !unreadable && std::all_of(devices.begin(), devices.end(), [](const device_verdict& d) { return d.fine(); });
  }
};

/// The whole answer: every file, the devices and the driver it was judged for.
struct inspect_report {
  std::vector<device_info> devices;
  std::optional<cuda_version> driver;  // nullopt: PTX was not checked against a driver
  std::string driver_source;           // "given", or how the driver was found
  std::vector<file_verdict> files;
  // A fleet (inspect --inventory): its nodes, GPU or not, and per device its node's driver (major 0: unknown).
  std::vector<inventory_node> nodes;
  std::vector<cuda_version> device_drivers;

  /// The driver device `i` is judged under: its node's in a fleet, else `driver`.
  std::optional<cuda_version> driver_of(std::size_t i) const {
    if (i >= device_drivers.size()) return driver;
    return device_drivers[i].major ? std::optional<cuda_version>(device_drivers[i]) : std::nullopt;
  }

  /// 2 when a file could not be read, else 1 when a device cannot load a file, whether it does is
  /// unknown (not shown to load), or no code for it was found in a library that picks its code, else
  /// 0 (also when no device was judged: the files were listed).
  int exit_status() const noexcept {
    int s = 0;
    for (const auto& f : files) {
      if (f.unreadable) return 2;
      if (!f.fine_everywhere()) s = 1;
    }
    return s;
  }
};

namespace detail {

/// A target as a small number, for sorting and counting without quadratic scans (a hostile file may
/// hold 200,000 images): sm number (< 1024, list_code's bound), variant, form.
constexpr std::uint32_t target_key(const arch_target& t) noexcept {
  return ((static_cast<std::uint32_t>(t.cc.sm_number()) * 4u + static_cast<std::uint32_t>(t.variant)) * 4u) +
         static_cast<std::uint32_t>(t.form);
}
constexpr std::size_t target_keys = 1024u * 16u;
constexpr arch_target target_of_key(std::uint32_t k) noexcept {
  const std::uint32_t sm = k / 16u;
  return arch_target{compute_capability{static_cast<int>(sm / 10u), static_cast<int>(sm % 10u)},
                     static_cast<arch_variant>((k / 4u) % 4u), static_cast<arch_form>(k % 4u)};
}

/// The distinct targets of a code object, sorted; without LTO IR (it never loads) unless `lto`.
inline std::vector<std::uint32_t> target_keys_of(const code_object& o, bool lto = false) {
  std::vector<std::uint32_t> keys;
  keys.reserve(o.images.size());
  for (const auto& img : o.images)
    if (lto || img.target.form != arch_form::lto) keys.push_back(target_key(img.target));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace detail

/// Judges every code object of `listing` on `device`. Linear in the images but for sorting: the
/// failing code objects are grouped by sorting their target sets, not by comparing each with each.
inline device_verdict judge_device(const code_listing& listing, const device_info& device,
                                   const std::optional<cuda_version>& driver) {
  device_verdict v;
  v.device = device;
  v.choice.assign(listing.objects.size(), image_choice::none);
  const bool loadable = has_loadable(listing);
  if (const auto drives = driver ? check_driver_drives_device(device.cc, *driver) : expected<void, error>{}; !drives) {
    // The driver cannot drive the device at all: every code object fails for that one reason, one group.
    failing_group g{{}, 0, drives.error()};
    std::vector<bool> held(detail::target_keys, false);
    for (const code_object& o : listing.objects)
      if (judged(o, loadable) && ++g.count)
        for (const std::uint32_t k : detail::target_keys_of(o)) held[k < held.size() ? k : 0] = true;
    for (std::uint32_t k = 0; k < held.size(); ++k)
      if (held[k]) g.targets.push_back(detail::target_of_key(k));
    if ((v.judged = g.count) != 0) v.failing.push_back(std::move(g));
    return v;
  }
  struct miss {  // alike when all but `object` are: the same targets, failing for the same reason
    std::vector<std::uint32_t> keys;
    errc code;
    cuda_version built_by;  // the later major that built it (the driver-major rule)
    ptx_isa_version ptx;    // the ISA the driver cannot JIT
    std::size_t object;
    auto alike() const { return std::tie(code, keys, built_by, ptx); }
  };
  std::vector<miss> misses, unsure;
  for (std::size_t i = 0; i < listing.objects.size(); ++i) {
    const code_object& o = listing.objects[i];
    if (o.embedded && may_launch(o)) {  // one of the library's own choices: counted, never a failure
      ++v.embedded;
      const image_choice c = choose_image(o, device.cc, driver);
      v.choice[i] = c.image;
      v.embedded_here += c.loads() ? 1 : 0;
    }
    if (!judged(o, loadable)) continue;
    ++v.judged;
    const image_choice c = choose_image(o, device.cc, driver);
    v.choice[i] = c.image;
    if (c.loads()) ++(c.jit ? v.by_ptx_jit : v.by_sass);
    else  // choose_image() says why whenever nothing loads (LTO IR named too: the targets said are real)
      (c.unknown() ? unsure : misses)
          .push_back(miss{detail::target_keys_of(o, true), c.why->code, c.why->required, c.why->ptx_required, i});
  }
  const auto group = [&](std::vector<miss>& all, std::vector<failing_group>& groups) {
    std::stable_sort(all.begin(), all.end(), [](const miss& a, const miss& b) { return a.alike() < b.alike(); });
    for (std::size_t at = 0; at < all.size();) {
      std::size_t end = at + 1;
      while (end < all.size() && all[end].alike() == all[at].alike()) ++end;
      failing_group g;
      for (const std::uint32_t k : all[at].keys) g.targets.push_back(detail::target_of_key(k));
      g.count = end - at;
      g.why = *choose_image(listing.objects[all[at].object], device.cc, driver).why;  // its reason, judged again
      groups.push_back(std::move(g));
      at = end;
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const failing_group& a, const failing_group& b) { return a.count > b.count; });
  };
  group(misses, v.failing);
  group(unsure, v.unknown);
  return v;
}

/// Judges a file already read (or its read error) on every device of `r`, each under its driver.
inline file_verdict judge_file(std::string path, expected<code_listing, error> listing, const inspect_report& r) {
  if (!listing) return file_verdict{std::move(path), listing.error(), {}, {}};
  file_verdict f{std::move(path), std::nullopt, std::move(*listing), {}};
  if (f.has_code())
    for (std::size_t i = 0; i < r.devices.size(); ++i)
      f.devices.push_back(judge_device(f.listing, r.devices[i], r.driver_of(i)));
  return f;
}

namespace detail {

/// Targets with the number of code objects holding each, in the order of first appearance.
struct target_tally {
  std::vector<std::size_t> per_key = std::vector<std::size_t>(target_keys, 0);
  std::vector<std::uint32_t> order;
  std::size_t objects = 0;
  void add(const code_object& o) {
    ++objects;
    for (const std::uint32_t k : target_keys_of(o, true))
      if (k < per_key.size() && per_key[k]++ == 0) order.push_back(k);
  }
};

inline std::string names_text(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s.append(s.empty() ? "" : ", ").append(printable(n));
  return s;
}

inline std::string targets_text(const std::vector<arch_target>& ts) {
  std::string s;
  for (const auto& t : ts) s.append(s.empty() ? "" : ", ").append(to_text(t).view());
  return s;
}

/// The first CUDA release of cuarch's table whose compilers write PTX ISA `isa`, and whose driver
/// JITs it (ptx_isa_read_by); nullopt past the table.
constexpr std::optional<cuda_version> first_release_of_isa(const ptx_isa_version& isa) noexcept {
  for (const auto& row : toolkit_table)
    if (isa <= row.ptx_isa) return row.release;
  return std::nullopt;
}

}  // namespace detail

/// The CUDA that built a listing, as far as it says: the newest release named by a cubin's
/// .note.nv.tkinfo, or implied by a PTX image's ISA (CUDA 13.0 writes 9.0); {} when nothing says.
inline cuda_version builder_of(const code_listing& l) {
  cuda_version b{};
  for (const auto& o : l.objects)
    for (const auto& img : o.images) {
      const std::optional<cuda_version> by = img.target.form == arch_form::ptx
                                                 ? detail::first_release_of_isa(img.version)
                                                 : std::optional<cuda_version>(img.built_by);
      if (by && b < *by) b = *by;
    }
  return b;
}

/// One way to make a group load, for machines: build `add` too (by a CUDA of major `build_major`
/// when not 0, else by the one that built the file; with `build_major` and nothing to add, rebuild
/// the file with it), and run under a driver that serves CUDA `driver` or newer (nullopt: the
/// driver judged). tests/inspect_test.cpp applies every one to the corpus and requires "loads".
struct fix_way {
  std::vector<arch_target> add;
  int build_major = 0;
  std::optional<cuda_version> driver;
};

/// A group's fix: its words (`fix` in JSON, "fix: " in the text) and the ways they name.
struct load_fix {
  std::string text;
  std::vector<fix_way> ways;
};

/// The fix of a group on a device of compute capability `cc` under `driver`, for a file built by
/// `builder` (builder_of). Each way named is one that loads by choose_image's rules: an added target
/// is built by a CUDA the driver runs, and PTX only where the driver JITs what that CUDA writes.
inline load_fix fix_of(const failing_group& g, const compute_capability& cc, const std::optional<cuda_version>& driver,
                       const cuda_version& builder) {
  load_fix fix;
  const std::string n = std::to_string(cc.sm_number()), c(to_text(cc).view());
  const arch_target sass{cc, arch_variant::baseline, arch_form::sass}, ptx{cc, arch_variant::baseline, arch_form::ptx};
  const std::string add_sass = "add sm_" + n + " (nvcc: -gencode arch=compute_" + n + ",code=sm_" + n +
                               "; CMake: " + n + "-real; PyTorch: " + c + ")";
  const auto serves = [](const cuda_version& v) {
    return "update the driver to one that serves CUDA " + std::to_string(v.major) + ".0 or newer";
  };
  // The driver does not run what the file's CUDA builds: what is added must be built by its own major.
  const bool later_major = driver && builder.major && !driver_runs_code_of(*driver, builder);
  switch (g.why.code) {
    case errc::unknown_builder:  // what settles it: a driver of the newest major cuarch knows runs what any known CUDA built
      fix.ways.push_back(fix_way{{}, 0, cuda_version{g.why.required.major, 0}});
      fix.text = g.why.message().substr(g.why.message().find("; fix: to settle it, ") + 21);
      return fix;
    case errc::ptx_too_new_for_driver: {
      const std::optional<cuda_version> reads = detail::first_release_of_isa(g.why.ptx_required);
      const std::string isa(to_text(g.why.ptx_required).view());
      fix.text = reads ? serves(*reads) + " (it JITs PTX ISA " + isa + ")"
                       : "update the driver to one that JITs PTX ISA " + isa;
      if (reads) fix.ways.push_back(fix_way{{}, 0, cuda_version{reads->major, 0}});
      if (later_major || (reads && driver && !driver_runs_code_of(*driver, *reads))) {
        fix.ways.push_back(fix_way{{sass}, driver->major, std::nullopt});
        fix.text += ", or " + add_sass + " machine code built with CUDA " + std::to_string(driver->major) + ".x";
      } else {
        fix.ways.push_back(fix_way{{sass}, 0, std::nullopt});
        fix.text += ", or add sm_" + n + " machine code";
      }
      return fix;
    }
    default: break;
  }
  if (g.why.found.major) {  // machine code of a later major: the error's own fix (core/error.hpp words the rule once)
    fix.ways.push_back(fix_way{{}, 0, cuda_version{g.why.required.major, 0}});
    fix.ways.push_back(fix_way{{}, g.why.found.major, std::nullopt});
    const std::string words = g.why.message();
    fix.text = words.substr(words.find("; fix: ") + 7);
    return fix;
  }
  if (later_major) {
    fix.ways.push_back(fix_way{{sass}, driver->major, std::nullopt});
    fix.ways.push_back(fix_way{{sass}, 0, cuda_version{builder.major, 0}});
    fix.text = add_sass + " built with CUDA " + std::to_string(driver->major) + ".x (CUDA " +
               std::string(to_text(builder).view()) + " built this file, which a driver serving CUDA " +
               std::string(to_text(*driver).view()) + " does not run), or add it and " + serves(builder);
    return fix;
  }
  if (driver && !builder.major) {  // the file does not say which CUDA built it: say which the driver runs
    fix.ways.push_back(fix_way{{sass}, driver->major, std::nullopt});
    fix.text = add_sass + " built with CUDA " + std::to_string(driver->major) + ".x or older (the driver serves CUDA " +
               std::string(to_text(*driver).view()) + ")";
    return fix;
  }
  fix.ways.push_back(fix_way{{sass}, 0, std::nullopt});
  fix.text = add_sass;
  // PTX of the file's CUDA, only where the driver JITs what that CUDA writes (or no driver was named).
  const std::optional<ptx_isa_version> writes = builder.major ? ptx_isa_of(builder) : std::nullopt;
  if (!driver || (writes && check_driver_can_jit_isa(ptx, *writes, *driver))) {
    fix.ways.push_back(fix_way{{ptx}, 0, std::nullopt});
    fix.text += ", or PTX of compute capability " + c + " or lower (compute_XY) for the driver to JIT";
  }
  return fix;
}

namespace detail {}  // namespace detail

/// For people: per file, what it holds and per device whether it loads, how, and the fix.
inline std::string inspect_text(const inspect_report& r) {
  std::string out;
  for (const auto& n : r.nodes) {
    out += "node " + detail::printable(n.name) + ": ";
    if (n.gpus.empty()) out += "no GPU (" + n.no_gpu + ")";
    for (std::size_t i = 0; i < n.gpus.size(); ++i)
      out += (i ? ", " : "") + std::to_string(n.gpus[i].count) + " x " +
             (n.gpus[i].product.empty() ? "GPU" : detail::printable(n.gpus[i].product)) + " (cc " +
             std::string(to_text(n.gpus[i].cc).view()) + ")";
    if (!n.gpus.empty())
      out += n.driver.major
                 ? "; driver serves CUDA " + std::string(to_text(n.driver).view()) + " (" +
                       detail::printable(n.driver_said) + (n.driver_by_table ? ", by cuarch's table" : "") + ")"
                 : std::string("; driver unknown: PTX not checked");
    out += "\n";
  }
  // Files without CUDA code (most of a directory: headers, scripts) are counted, not listed, unless alone.
  const std::size_t codeless = static_cast<std::size_t>(std::count_if(
      r.files.begin(), r.files.end(), [](const file_verdict& f) { return !f.unreadable && !f.has_code(); }));
  constexpr const char* no_code_why =
      "no .nv_fatbin or __nv_relfatbin section and no fatbin in a data section; not a fatbin, cubin or PTX text";
  bool judged_ptx = false;  // whether the driver note below bears on anything
  for (const auto& f : r.files) {
    if (!f.unreadable && !f.has_code()) {
      if (codeless == 1) out += detail::printable(f.path) + ": no CUDA code (" + no_code_why + ")\n";
      continue;
    }
    out += detail::printable(f.path) + ": ";
    if (f.unreadable) {
      out += "unreadable: " + f.unreadable->message() + "\n";
      continue;
    }
    // The code objects judged, and apart from them the embedded ones (the library's own choices).
    detail::target_tally judged_targets, embedded_targets;
    std::size_t relocatable = 0;
    const bool loadable = has_loadable(f.listing);
    for (const auto& o : f.listing.objects) {
      if (o.embedded) embedded_targets.add(o);
      if (!judged(o, loadable)) continue;
      judged_targets.add(o);
      relocatable += o.relocatable ? 1 : 0;
      judged_ptx |= !f.devices.empty() && std::any_of(o.images.begin(), o.images.end(), [](const code_image& i) {
        return i.target.form == arch_form::ptx;
      });
    }
    const std::size_t idle = static_cast<std::size_t>(std::count_if(
        f.listing.objects.begin(), f.listing.objects.end(),
        [&](const code_object& o) { return !o.embedded && (!o.relocatable || !loadable) && !may_launch(o); }));
    const std::size_t judged_objects = judged_targets.objects, embedded = embedded_targets.objects;
    out += std::string(to_string(f.listing.kind)) + ", " + std::to_string(judged_objects) + " code object" +
           (judged_objects == 1 ? "" : "s") + (relocatable ? " (relocatable: for the device linker)" : "") +
           (idle ? " (and " + std::to_string(idle) + " without a kernel, not judged)" : "") +
           (embedded ? " and " + std::to_string(embedded) + " embedded in " + detail::names_text(f.listing.embedded_in)
                     : std::string()) +
           ", " + std::to_string(f.listing.image_count()) + " image" + (f.listing.image_count() == 1 ? "" : "s") +
           "\n  targets:";
    for (const std::uint32_t k : judged_targets.order)
      out += " " + std::string(to_text(detail::target_of_key(k)).view()) +
             (judged_targets.per_key[k] == judged_objects ? "" : "(" + std::to_string(judged_targets.per_key[k]) + ")");
    out += "\n";
    if (embedded) {
      out +=
          "  embedded targets (code objects in data sections, which the library loads itself, picking by "
          "architecture; cuobjdump does not list them):";
      for (const std::uint32_t k : embedded_targets.order)
        out += " " + std::string(to_text(detail::target_of_key(k)).view()) + "(" +
               std::to_string(embedded_targets.per_key[k]) + ")";
      out += "\n";
    }
    const cuda_version builder = builder_of(f.listing);
    for (std::size_t i = 0; i < f.devices.size(); ++i) {
      const device_verdict& d = f.devices[i];
      const std::string cc(to_text(d.device.cc).view()), of = " of " + std::to_string(d.judged) + " code objects ";
      out += "  cc " + cc + (d.device.name.empty() ? "" : " (" + detail::printable(d.device.name) + ")") + ": ";
      if (d.loads()) {
        out += d.judged || d.embedded
                   ? "loads: every code object has an image for cc " + cc + " (" + std::to_string(d.by_sass) +
                         " as SASS, " + std::to_string(d.by_ptx_jit) + " by JIT of PTX" +
                         (d.embedded ? ", and " + std::to_string(d.embedded) + " embedded ones" : std::string()) + ")\n"
                   : std::string("loads: no code object holds a kernel, so none can fail to launch\n");
        continue;
      }
      const bool dispatches = d.verdict() == load_verdict::dispatches;
      if (dispatches)  // the counts of both kinds, then what the rest are, with no fix: nothing is broken
        out += "dispatches: " + std::to_string(d.by_sass + d.by_ptx_jit) + of + "it registers" +
               (d.embedded
                    ? " and " + std::to_string(d.embedded_here) + " of " + std::to_string(d.embedded) + " embedded ones"
                    : std::string()) +
               " have an image for cc " + cc +
               "; the others hold code only for other architectures, which a library that picks its kernels by "
               "architecture launches only there\n";
      if (d.verdict() == load_verdict::no_code_found)
        out += "no code found for it: none of " + std::to_string(d.embedded) +
               " embedded code objects, nor of the code objects it registers, has an image for cc " + cc +
               " (not proof that it cannot run: the library may load code from elsewhere)\n";
      // The groups, largest first (--format json lists every one), then each fix (or what settles it) once.
      const auto groups = [&](const std::vector<failing_group>& all, const char* fix_word) {
        constexpr std::size_t shown = 8;
        std::vector<std::string> fixes;
        for (std::size_t k = 0; k < all.size(); ++k) {
          const failing_group& g = all[k];
          if (fix_word)  // none where nothing is broken (dispatches)
            if (std::string fix = fix_of(g, d.device.cc, r.driver_of(i), builder).text;
                std::find(fixes.begin(), fixes.end(), fix) == fixes.end())
              fixes.push_back(std::move(fix));
          if (k >= shown) continue;
          std::string why = g.why.message();  // its own "; fix: ..." gives way to the fixes below
          if (const auto cut = why.find("; fix: "); cut != std::string::npos) why.resize(cut);
          out += "    " + std::to_string(g.count) + " hold only " + detail::targets_text(g.targets) + ": " + why + "\n";
        }
        if (all.size() > shown)
          out += "    ... and " + std::to_string(all.size() - shown) + " more groups (--format json lists them all)\n";
        for (const auto& fix : fixes) out += "    " + std::string(fix_word) + ": " + fix + "\n";
      };
      if (!d.failing.empty()) {
        if (d.verdict() == load_verdict::cannot_load)
          out += "CANNOT LOAD: " + std::to_string(d.failed()) + of + "have no image for it\n";
        groups(d.failing, dispatches ? nullptr : "fix");
      }
      if (!d.unknown.empty()) {
        out += std::string(d.failing.empty() ? "unknown: built by an unknown CUDA: "
                                             : "    and, built by an unknown CUDA, ") +
               std::to_string(d.unknowns()) + of +
               "load only if the driver runs the CUDA that built their machine code, which the file does not say\n";
        groups(d.unknown, "settle");
      }
      // Some load beside these, which fail for the driver or may (per-architecture ones are dispatches).
      if (!dispatches && d.failed() + d.unknowns() < d.judged)
        out += "    (a kernel fails to launch on it only if its code object is one of these)\n";
    }
  }
  if (codeless > 1)
    out += std::to_string(codeless) + " files have no CUDA code (" + no_code_why +
           "): not listed; --format json lists every file\n";
  if (r.devices.empty() && r.nodes.empty() && !r.files.empty())
    out += "nothing judged: no device was named and none is visible here (--device-cc X.Y[,...] and --driver X.Y judge these files)\n";
  if (!r.driver && r.nodes.empty() && judged_ptx) out += "(PTX not checked against a driver: pass --driver X.Y)\n";
  return out;
}

/// The cuarch.inspect/1 document (docs/json.md). `failure`: what stopped the inspection before any
/// file was judged (no device); the files are then empty.
inline std::string inspect_json(const inspect_report& r, const std::optional<error>& failure = std::nullopt) {
  detail::json_writer w;
  const int status = failure ? exit_status(failure->code) : r.exit_status();
  // "error" (docs/json.md: with ok false, the error whose exit status the command has): what stopped
  // the inspection, else the first unreadable file's, else the first code object that cannot load.
  std::optional<error> first = failure;
  for (const auto& f : r.files)
    if (!first && f.unreadable) first = f.unreadable;
  for (const auto& f : r.files)
    for (const auto& d : f.devices)
      if (!first && !d.fine() && !d.failing.empty()) first = d.failing.front().why;
  for (const auto& f : r.files)
    for (const auto& d : f.devices)
      if (!first && !d.fine() && !d.unknown.empty()) first = d.unknown.front().why;
  for (const auto& f : r.files)  // no code found in a library that picks its code: its first embedded miss says why
    for (std::size_t i = 0; i < f.devices.size(); ++i)
      if (!first && f.devices[i].verdict() == load_verdict::no_code_found)
        for (const auto& o : f.listing.objects)
          if (!first && o.embedded && may_launch(o))
            first = choose_image(o, f.devices[i].device.cc, r.driver_of(i)).why;
  detail::begin_document(w, json_schema::inspect).key("ok").value(status == 0).key("exit_status").value(status).key("error");
  detail::json_optional_error(w, first);
  w.key("driver");
  if (r.driver)
    w.begin_object().key("version").value(to_text(*r.driver).view()).key("source").value(r.driver_source).end_object();
  else w.null();
  detail::json_objects(w.key("devices"), r.devices, [&](const device_info& d) {
    w.key("cc").value(to_text(d.cc).view()).key("name").value(d.name).key("source").value(to_string(d.source));
    detail::text_or_null(w.key("driver"), r.driver_of(static_cast<std::size_t>(&d - r.devices.data())));
  });
  detail::json_objects(
      w.key("nodes"), r.nodes, [&](const inventory_node& n) {  // inspect --inventory: every node, GPU or not
        detail::json_objects(w.key("name").value(n.name).key("gpus"), n.gpus, [&](const inventory_gpu& g) {
          w.key("cc").value(to_text(g.cc).view()).key("count").value(g.count).key("product").value(g.product);
        });
        detail::text_or_null(w.key("driver"), n.driver.major ? std::optional<cuda_version>(n.driver) : std::nullopt);
        w.key("driver_said").value(n.driver_said).key("driver_by_table").value(n.driver_by_table).key("no_gpu");
        if (n.gpus.empty()) w.value(n.no_gpu);
        else w.null();
      });
  detail::json_objects(w.key("files"), r.files, [&](const file_verdict& f) {
    w.key("path").value(f.path).key("error");
    detail::json_optional_error(w, f.unreadable);
    w.key("kind").value(to_string(f.listing.kind)).key("has_cuda_code").value(f.has_code());
    w.key("embedded_in").value(f.listing.embedded_in);
    const bool loadable = has_loadable(f.listing);
    detail::json_objects(w.key("code_objects"), f.listing.objects, [&](const code_object& o) {
      w.key("offset").value(static_cast<long long>(o.offset)).key("relocatable").value(o.relocatable);
      w.key("embedded").value(o.embedded);
      detail::json_objects(w.key("judged").value(judged(o, loadable)).key("images"), o.images, [&](const code_image& img) {
        w.key("kind").value(to_string(img.target.form)).key("target").value(to_text(img.target).view());
        w.key("code_version").value(to_text(img.version).view()).key("compressed").value(img.compressed);
        w.key("offset").value(static_cast<long long>(img.offset)).key("size").value(static_cast<long long>(img.size));
        detail::text_or_null(w.key("built_by"),
                             img.built_by.major ? std::optional<cuda_version>(img.built_by) : std::nullopt);
        w.key("kernels").value(to_string(img.kernels));
      });
    });
    const cuda_version builder = builder_of(f.listing);
    detail::json_objects(w.key("devices"), f.devices, [&](const device_verdict& d) {
      const std::optional<cuda_version> driver = r.driver_of(static_cast<std::size_t>(&d - f.devices.data()));
      w.key("cc").value(to_text(d.device.cc).view()).key("name").value(d.device.name).key("loads").value(d.loads());
      w.key("verdict").value(to_string(d.verdict()));
      w.key("code_objects").value(static_cast<long long>(d.judged)).key("by_sass").value(static_cast<long long>(d.by_sass));
      w.key("by_ptx_jit").value(static_cast<long long>(d.by_ptx_jit));
      w.key("embedded_code_objects").value(static_cast<long long>(d.embedded));
      w.key("embedded_here").value(static_cast<long long>(d.embedded_here));
      std::vector<long long> chosen(detail::target_keys, 0);  // the images it loads, by target: how many code objects
      std::vector<std::uint32_t> order;
      for (std::size_t i = 0; i < d.choice.size(); ++i) {
        if (d.choice[i] == image_choice::none) continue;
        const std::uint32_t k = detail::target_key(f.listing.objects[i].images[d.choice[i]].target);
        if (k < chosen.size() && chosen[k]++ == 0) order.push_back(k);
      }
      detail::json_objects(w.key("chosen"), order, [&](std::uint32_t k) {
        w.key("target").value(to_text(detail::target_of_key(k)).view()).key("count").value(chosen[k]);
      });
      // Each group with its fix: the words, and the ways they name (fix_way) for a program to apply.
      const auto groups = [&](const char* key, const char* fix_key, const std::vector<failing_group>& all) {
        detail::json_objects(w.key(key), all, [&](const failing_group& g) {
          std::vector<std::string> ts;
          for (const auto& t : g.targets) ts.emplace_back(to_text(t).view());
          detail::json_error(
              w.key("count").value(static_cast<long long>(g.count)).key("targets").value(ts).key("error"), g.why);
          const load_fix fix = fix_of(g, d.device.cc, driver, builder);
          w.key(fix_key).value(fix.text);
          detail::json_objects(w.key("fix_ways"), fix.ways, [&](const fix_way& way) {
            std::vector<std::string> add;
            for (const auto& t : way.add) add.emplace_back(to_text(t).view());
            w.key("add").value(add).key("build_major");
            if (way.build_major) w.value(way.build_major);
            else w.null();
            detail::text_or_null(w.key("driver"), way.driver);
          });
        });
      };
      groups("failing", "fix", d.failing);
      groups("unknown", "settle", d.unknown);
    });
  });
  w.end_object();
  return w.str();
}

CUARCH_END_NAMESPACE
