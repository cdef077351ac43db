// A fleet as its cluster already knows it, read into nodes: `kubectl get nodes -o json` (NVIDIA GPU
// feature discovery's node labels) or a CSV of `nvidia-smi --query-gpu=...` from many hosts. Pure:
// sources/code_file.hpp reads the file; `resolve --inventory` and `inspect --inventory` judge every
// node with its compute capabilities and its driver (docs/inspect.md, "A fleet").
//
// The labels, as GPU feature discovery writes them (NVIDIA/k8s-device-plugin internal/lm/nvml.go,
// newVersionLabeler, and internal/lm/resource.go, newArchitectureLabels): nvidia.com/gpu.compute.major
// and .minor, nvidia.com/gpu.product, nvidia.com/gpu.count; the CUDA the driver serves as
// nvidia.com/cuda.runtime-version.major/.minor (older: nvidia.com/cuda.runtime.major/.minor), and the
// driver release as nvidia.com/cuda.driver-version.full (older: nvidia.com/cuda.driver.major/.minor/.rev).
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arch_table.hpp"
#include "config.hpp"
#include "decode.hpp"
#include "detail/json_reader.hpp"
#include "detail/utf8.hpp"
#include "device_list.hpp"
#include "error.hpp"
#include "expected.hpp"
#include "observation.hpp"

CUARCH_BEGIN_NAMESPACE

/// GPUs of one compute capability and product on a node.
struct inventory_gpu {
  compute_capability cc{};
  int count = 1;
  std::string product;  // "NVIDIA-H200" (a label), "NVIDIA H200" (nvidia-smi); may be empty
};

/// One node (kubectl) or host (CSV).
struct inventory_node {
  std::string name;
  std::vector<inventory_gpu> gpus;  // empty: no GPU node, `no_gpu` says why
  std::string no_gpu;
  cuda_version driver{};         // the CUDA its driver serves; major 0: unknown (PTX not checked for it)
  std::string driver_said;       // the file's words for it: "580.159.04", "cuda.runtime-version 13.0"
  bool driver_by_table = false;  // inferred from the driver release by cuarch's table (toolkit_served_by)
};

struct inventory {
  std::string path;
  std::string format;  // "kubectl" or "csv"
  std::vector<inventory_node> nodes;

  /// One device per GPU node and compute capability, named after its node, in file order; `node_of`,
  /// when given, gets each device's index in `nodes` (linear: no device looks its node up by name).
  std::vector<device_info> devices(std::vector<std::size_t>* node_of = nullptr) const {
    std::vector<device_info> out;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const std::size_t first = out.size();
      for (const auto& g : nodes[k].gpus) {
        bool seen = false;
        for (std::size_t i = first; i < out.size(); ++i) seen = seen || out[i].cc == g.cc;
        if (seen) continue;
        out.push_back(device_info{static_cast<int>(out.size()), g.cc, nodes[k].name, source_kind::device_list});
        if (node_of) node_of->push_back(k);
      }
    }
    return out;
  }
};

namespace detail {

/// A problem at `where` ("node gpu-3", "line 4") of the inventory at `path`: unreadable_input (exit 2).
inline error inventory_error(const std::string& path, const std::string& where, const std::string& why) {
  return errors::unreadable_input(source_kind::device_list, printable(where), path, printable(why));
}

/// The driver from a release ("580.159.04"): the CUDA it serves by cuarch's table.
inline bool driver_from_release(inventory_node& n, std::string_view release) {
  const auto d = parse_driver_version(release);
  if (!d) return false;
  n.driver = toolkit_served_by(*d);
  n.driver_said = std::string(trim(release));
  n.driver_by_table = true;
  return true;
}

/// The string members of one node by their path inside it ("metadata.name", "metadata.labels.nvidia.com/gpu.count").
using node_members = std::map<std::string, std::string>;

/// One node of a kubectl document from its members: `index` names it when it has no name (items[3]).
inline expected<inventory_node, error> read_node(const node_members& members, const std::string& path,
                                                 const std::string& index) {
  const auto get = [&](const std::string& key) -> const std::string* {
    const auto it = members.find(key);
    return it == members.end() ? nullptr : &it->second;
  };
  const auto any_under = [&](const std::string& prefix) {
    const auto it = members.lower_bound(prefix);
    return it != members.end() && it->first.compare(0, prefix.size(), prefix) == 0;
  };
  inventory_node n;
  const std::string* name = get("metadata.name");
  n.name = name ? *name : index;
  const std::string where = "node " + n.name;
  const auto label = [&](const std::string& key) { return get("metadata.labels.nvidia.com/" + key); };
  std::string unread;  // the first value read that says nothing: an error, never a default in its place
  const auto number = [&](const std::string& key, int& into) {
    const std::string* v = label(key);
    if (v && !parse_uint(*v, into) && unread.empty())
      unread = "label nvidia.com/" + key + " '" + *v + "' is not a number";
    return v && parse_uint(*v, into);
  };
  const auto release = [&](const std::string& key, const std::string& value) {
    if (!driver_from_release(n, value) && unread.empty())
      unread = "label nvidia.com/" + key + " '" + value + "' is not a driver release";
  };
  const std::string *major = label("gpu.compute.major"), *minor = label("gpu.compute.minor");
  const std::string* capacity = get("status.capacity.nvidia.com/gpu");
  if (major || minor) {
    inventory_gpu g;
    if (!number("gpu.compute.major", g.cc.major) || !number("gpu.compute.minor", g.cc.minor))
      return unexpected(inventory_error(path, where,
                                        "labels nvidia.com/gpu.compute.major and .minor must both be numbers, not '" +
                                            (major ? *major : "") + "' and '" + (minor ? *minor : "") + "'"));
    if (const std::string* product = label("gpu.product")) g.product = *product;
    if (!number("gpu.count", g.count) && capacity && !parse_uint(*capacity, g.count) && unread.empty())
      unread = "capacity nvidia.com/gpu '" + *capacity + "' is not a number";
    n.gpus.push_back(std::move(g));
    cuda_version v{0, 0, -1};
    for (const std::string key : {"cuda.runtime-version", "cuda.runtime"})  // newer GFD's, else older's
      if (n.driver_said.empty() && number(key + ".major", v.major) && number(key + ".minor", v.minor))
        n.driver_said = "nvidia.com/" + key + " " + std::to_string(v.major) + "." + std::to_string(v.minor);
    if (!n.driver_said.empty()) n.driver = v;
    else if (const std::string* full = label("cuda.driver-version.full")) release("cuda.driver-version.full", *full);
    else if (const std::string* dm = label("cuda.driver.major"), *dn = label("cuda.driver.minor"); dm && dn) {
      const std::string* rev = label("cuda.driver.rev");
      release("cuda.driver.major/.minor/.rev", *dm + "." + *dn + (rev && !rev->empty() ? "." + *rev : ""));
    }
    if (!unread.empty()) return unexpected(inventory_error(path, where, unread));
  } else {
    int gpus = 0;
    if (any_under("metadata.labels.nvidia.com/gpu.") || (capacity && parse_uint(*capacity, gpus) && gpus > 0))
      return unexpected(inventory_error(
          path, where,
          "it has NVIDIA GPUs (nvidia.com/gpu labels or capacity) but no nvidia.com/gpu.compute.major/.minor "
          "label: run GPU feature discovery on it, or list it in an nvidia-smi CSV"));
    n.no_gpu = "no nvidia.com/gpu.compute label and no nvidia.com/gpu capacity";
  }
  return n;
}

/// Reads a kubectl document as it streams by (core/detail/json.hpp, json_reader): each element of a
/// top-level "items" array is read into a node when it ends, so memory is one node's members at a
/// time, not the whole file's; everything else is kept for a lone Node. Which of the two the file
/// is ("kind") is known only at the end, where the reader has also refused duplicate keys.
struct kubectl_nodes {
  const std::string& path;
  node_members top;                   // members outside items[...]: a Node document's node
  node_members item;                  // the members of the item being read
  std::vector<inventory_node> items;  // the items read
  std::optional<error> item_error;    // the first item that could not be read
  std::size_t item_count = 0;

  /// The index of the item a path is in ("items[12].metadata.name" -> 12, the rest in `rest`), or -1.
  static long item_of(const std::string& p, std::string_view& rest) {
    if (p.compare(0, 6, "items[") != 0) return -1;
    int i = 0;
    const std::size_t digits = read_uint(std::string_view(p).substr(6), i);
    if (digits == 0 || p.size() <= 6 + digits || p[6 + digits] != ']') return -1;
    rest = std::string_view(p).substr(7 + digits);
    return i;
  }
  void string(const std::string& p, std::string&& value) {
    std::string_view rest;
    if (item_of(p, rest) < 0) top[p] = std::move(value);
    else if (rest.size() > 1 && rest.front() == '.') item[std::string(rest.substr(1))] = std::move(value);
  }
  void end(const std::string& p, bool is_object) {
    std::string_view rest;
    if (item_of(p, rest) < 0 || !rest.empty()) return;
    const std::string index = "items[" + std::to_string(item_count++) + "]";
    if (item_error) return item.clear();
    if (!is_object) {
      item_error = inventory_error(path, index, "it is not an object (a Node)");
      return;
    }
    auto n = read_node(item, path, index);
    if (n) items.push_back(std::move(*n));
    else item_error = n.error();
    item.clear();
  }
};

/// `skipped`: the bytes before `text` in the file (a byte order mark), so that offsets are the file's.
inline expected<inventory, error> read_kubectl(std::string_view text, std::size_t skipped, inventory inv) {
  kubectl_nodes doc{inv.path, {}, {}, {}, {}, 0};
  if (auto bad = json_reader<kubectl_nodes>::read(text, doc)) {
    bad->offset += skipped;
    return unexpected(inventory_error(inv.path, "the file", "it is not valid JSON: " + bad->message()));
  }
  const auto kind_at = doc.top.find("kind");
  const std::string kind = kind_at == doc.top.end() ? std::string() : kind_at->second;
  if (kind == "Node") {
    auto n = read_node(doc.top, inv.path, "the node");
    if (!n) return unexpected(n.error());
    inv.nodes.push_back(std::move(*n));
    return inv;
  }
  if (kind != "List" && kind != "NodeList")
    return unexpected(inventory_error(inv.path, "the file", "its \"kind\" is '" + kind + "', not List or Node"));
  if (doc.item_error) return unexpected(*doc.item_error);
  inv.nodes = std::move(doc.items);
  return inv;
}

inline expected<inventory, error> read_csv(std::string_view text, inventory inv) {
  std::vector<std::string> header;
  enum { host, cc, driver, cuda, product, columns };
  std::size_t col[columns] = {};  // set from the header, before any row is read
  std::map<std::string, std::size_t> node_of;
  std::size_t number = 0;
  for (const std::string_view text_line : split(text, '\n')) {
    const std::string_view line = trim(text_line);
    const std::string where = "line " + std::to_string(++number);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> f;
    for (const std::string_view field : split(line, ',')) f.emplace_back(trim(field));
    if (header.empty()) {
      for (auto& name : f) {
        name = std::string(trim(name.substr(0, name.find(" ["))));  // "memory.total [MiB]"
        for (auto& c : name) c = to_lower(c);
      }
      const auto find = [&](std::initializer_list<std::string_view> names) {
        for (std::size_t i = 0; i < f.size(); ++i)
          for (const auto n : names)
            if (f[i] == n) return i;
        return f.size();
      };
      col[host] = find({"host", "hostname", "node"});
      col[cc] = find({"compute_cap"});
      col[driver] = find({"driver_version"});
      col[cuda] = find({"cuda_version"});
      col[product] = find({"name", "gpu_name"});
      if (col[cc] == f.size())
        return unexpected(inventory_error(
            inv.path, where,
            "it names no compute_cap column: the first line must be the header nvidia-smi --format=csv writes (not noheader), "
            "e.g. host, name, compute_cap, driver_version"));
      header = std::move(f);
      continue;
    }
    if (f.size() != header.size())
      return unexpected(inventory_error(
          inv.path, where,
          "it has " + std::to_string(f.size()) + " fields, the header names " + std::to_string(header.size())));
    if (f[col[cc]] == "compute_cap") continue;  // the header again: outputs of many hosts concatenated
    const std::string name = col[host] < f.size() ? f[col[host]] : inv.path;
    const auto [it, added] = node_of.emplace(name, inv.nodes.size());
    if (added) inv.nodes.push_back(inventory_node{name, {}, "its rows name no compute_cap", {}, {}, false});
    inventory_node& n = inv.nodes[it->second];
    const std::string& capability = f[col[cc]];
    if (capability.empty() || capability == "[N/A]" || capability == "N/A") continue;
    const auto c = parse_compute_capability(capability);
    if (!c)
      return unexpected(inventory_error(inv.path, where, "compute_cap '" + capability + "' is not a compute capability"));
    inventory_node was = n;
    if (col[cuda] < f.size() && !f[col[cuda]].empty()) {
      const auto v = parse_cuda_version(f[col[cuda]]);
      if (!v)
        return unexpected(inventory_error(inv.path, where, "cuda_version '" + f[col[cuda]] + "' is not a CUDA version"));
      n.driver = v->release();
      n.driver_said = "cuda_version " + f[col[cuda]];
      n.driver_by_table = false;
    } else if (col[driver] < f.size() && !f[col[driver]].empty() && !driver_from_release(n, f[col[driver]])) {
      return unexpected(
          inventory_error(inv.path, where, "driver_version '" + f[col[driver]] + "' is not a driver release"));
    }
    if (!was.gpus.empty() && was.driver_said != n.driver_said)
      return unexpected(inventory_error(
          inv.path, where, "host " + name + " has rows with drivers " + was.driver_said + " and " + n.driver_said));
    const std::string model = col[product] < f.size() ? f[col[product]] : std::string();
    n.no_gpu.clear();
    auto same = std::find_if(n.gpus.begin(), n.gpus.end(),
                             [&](const inventory_gpu& g) { return g.cc == *c && g.product == model; });
    if (same != n.gpus.end()) ++same->count;
    else n.gpus.push_back(inventory_gpu{*c, 1, model});
  }
  if (header.empty()) return unexpected(inventory_error(inv.path, "the file", "it is empty"));
  return inv;
}

}  // namespace detail

/// What to say beside a verdict on the fleet: the nodes without GPUs, the drivers whose CUDA is
/// unknown (PTX is not checked for them) or was inferred from the driver release by cuarch's table.
/// One note per thing said, naming the first node and counting the others (a fleet of 2,000 nodes).
inline std::vector<std::string> inventory_notes(const inventory& inv) {
  std::vector<std::pair<std::string, std::vector<std::string>>> said;  // words, the nodes they are said of
  for (const auto& n : inv.nodes) {
    std::string words;
    if (n.gpus.empty()) words = " has no GPU (" + n.no_gpu + "): nothing of it is judged";
    else if (n.driver.major == 0)
      words = ": the CUDA its driver serves is unknown (" +
              (n.driver_said.empty() ? std::string("no driver label or column")
                                     : "driver " + n.driver_said + " is outside cuarch's table of minimum drivers") +
              "): PTX is not checked for it";
    else if (n.driver_by_table)
      words = ": driver " + n.driver_said + " serves CUDA " + std::string(to_text(n.driver).view()) +
              " by cuarch's table of minimum drivers (the file names no CUDA version)";
    else continue;
    auto at = std::find_if(said.begin(), said.end(), [&](const auto& s) { return s.first == words; });
    if (at == said.end()) at = said.insert(said.end(), {words, {}});
    at->second.push_back(n.name);
  }
  std::vector<std::string> notes;
  for (const auto& [words, nodes] : said) {
    std::string note = "node " + nodes[0] + words;
    if (nodes.size() > 1)
      note += "; so for " + std::to_string(nodes.size() - 1) + " more node" + (nodes.size() > 2 ? "s" : "") + ":";
    for (std::size_t i = 1; i < nodes.size() && i <= 5; ++i) note += " " + nodes[i];
    notes.push_back(detail::printable(note + (nodes.size() > 6 ? " ..." : "")));
  }
  return notes;
}

/// The nodes of an inventory file's bytes (`path` names it in errors): JSON when it starts with
/// '{' (kubectl), else CSV. Errors: unreadable_input naming the file, the node or line, and what is
/// wrong there; a node without GPU labels is no error but a node without GPUs (`no_gpu`).
inline expected<inventory, error> parse_inventory(std::string_view text, std::string path) {
  inventory inv;
  inv.path = std::move(path);
  // A UTF-8 byte order mark, which editors on Windows write, is accepted before the document or the
  // header; anywhere else it is no character either format has, and would hide a key or a column.
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  const std::size_t skipped = text.substr(0, bom.size()) == bom ? bom.size() : 0;  // offsets stay the file's
  text.remove_prefix(skipped);
  if (const std::size_t at = text.find(bom); at != std::string_view::npos) {
    const std::size_t line = 1 + static_cast<std::size_t>(
                                     std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    return unexpected(
        detail::inventory_error(inv.path, "line " + std::to_string(line) + ", offset " + std::to_string(skipped + at),
                                "a UTF-8 byte order mark (EF BB BF) there; only one, at the very start, is allowed"));
  }
  const std::string_view t = detail::trim(text);
  inv.format = !t.empty() && t.front() == '{' ? "kubectl" : "csv";
  return inv.format == "kubectl" ? detail::read_kubectl(text, skipped, std::move(inv))
                                 : detail::read_csv(t, std::move(inv));
}

CUARCH_END_NAMESPACE
