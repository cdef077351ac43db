// Decompressing the images nvcc stores compressed in a fatbin (issue 32), so that a compressed
// cubin's .note.nv.tkinfo can say which CUDA built it. Two formats, told apart by the entry's flags:
//   0x8000: a Zstandard frame (RFC 8878; magic 28 b5 2f fd). nvcc 13.0 writes it by default and for
//           -Xfatbin=-compress-all, --compress-mode=size and =balance.
//   0x2000: an LZ4 block (the LZ4 block format: tokens, literals, 16-bit offsets), no frame. nvcc
//           12.x writes it, and nvcc 13.0 for --compress-mode=speed.
// Written here from the two public format descriptions; checked byte for byte against what
// cuobjdump -xelf extracts (tests/scripts/inspect_decompress_test.sh). Pure and bounded: every read
// is checked, the output never exceeds the size the entry declares (itself capped by
// max_decompressed_image), and the time is linear in the output. Nothing thrown: a failure is a
// byte offset into the compressed bytes and what is wrong there.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

CUARCH_BEGIN_NAMESPACE

/// The largest image cuarch decompresses: 512 MiB. The largest real cubin found is 133,833,256
/// bytes (in CUDA 13.0's libnccl.so.2; cuBLASLt's largest is 16.7 MB), so this leaves 4x headroom
/// while keeping a hostile entry's claim from exhausting memory.
inline constexpr std::uint64_t max_decompressed_image = 512ull << 20;

/// Why compressed bytes could not be decompressed: the offset in them, and what is wrong there.
struct decompress_failure {
  std::uint64_t at = 0;
  std::string what;
};

namespace detail {
namespace zstd {

using byte = unsigned char;
using failure = std::optional<decompress_failure>;
inline decompress_failure fail(std::uint64_t at, std::string what) { return decompress_failure{at, std::move(what)}; }

/// A backward bit stream (RFC 8878 4.1): the bytes as one little-endian number, read from its top,
/// after the highest set bit of the last byte (the end mark). Bits asked past the start read as 0,
/// and overrun() says so.
class backward_bits {
 public:
  backward_bits(const byte* data, std::size_t size) : data_(data), size_(size) {}
  /// Starts after the end mark; false when the last byte is 0 (no end mark) or there are no bytes.
  bool start() {
    if (size_ == 0 || data_[size_ - 1] == 0) return false;
    unsigned top = 7;
    while (!(data_[size_ - 1] >> top & 1)) --top;
    left_ = static_cast<std::int64_t>(size_ - 1) * 8 + top;
    refill();
    return true;
  }
  std::uint64_t peek(unsigned n) {  // n <= 56
    if (n == 0) return 0;
    if (left_ - static_cast<std::int64_t>(n) < low_) {
      refill();
      if (left_ < static_cast<std::int64_t>(n)) return short_peek(n);
    }
    return cache_ >> (left_ - n - low_) & mask(n);
  }
  void skip(unsigned n) { left_ -= n; }
  std::uint64_t read(unsigned n) {
    const std::uint64_t v = peek(n);
    skip(n);
    return v;
  }
  bool overrun() const { return left_ < 0; }
  bool done() const { return left_ == 0; }

 private:
  static std::uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
  /// Loads the 64 bits that end at the byte holding bit left_ - 1 (fewer, from bit 0, near the start).
  void refill() {
    const std::int64_t end = (left_ + 7) / 8;  // bytes [0, end) hold every bit not yet read
    const std::int64_t from = end > 8 ? end - 8 : 0;
    low_ = from * 8;
    cache_ = 0;
    for (std::int64_t i = std::min<std::int64_t>(from + 8, static_cast<std::int64_t>(size_)); i-- > from;)
      cache_ = cache_ << 8 | data_[i];
  }
  std::uint64_t short_peek(
      unsigned n) const {  // fewer than n bits left (the cache starts at bit 0): the missing low bits read as 0
    if (left_ <= 0) return 0;
    return (cache_ & mask(static_cast<unsigned>(left_))) << (n - static_cast<unsigned>(left_));
  }
  const byte* data_;
  std::size_t size_;
  std::int64_t left_ = 0;  // bits not yet read
  std::int64_t low_ = 0;   // cache_ holds bits [low_, low_ + 64)
  std::uint64_t cache_ = 0;
};

/// An FSE decoding table (RFC 8878 4.1.1): for each state, its symbol, and how to reach the next.
struct fse_table {
  struct cell {
    std::uint16_t symbol = 0;
    std::uint8_t bits = 0;
    std::uint16_t base = 0;
  };
  unsigned log = 0;
  std::vector<cell> cells;
};

/// Builds the table of a distribution (probabilities, -1 for "less than 1") of accuracy `log`.
inline bool build_fse(const std::vector<int>& probability, unsigned log, fse_table& t) {
  const std::uint32_t size = 1u << log;
  std::uint64_t total = 0;
  for (const int p : probability)
    total += p == -1 ? 1 : p < 0 ? std::uint64_t{size} + 1 : static_cast<std::uint64_t>(p);
  if (total != size) return false;  // every state must belong to exactly one symbol
  t.log = log;
  t.cells.assign(size, {});
  std::vector<std::uint32_t> next(probability.size());
  std::uint32_t high = size - 1;
  for (std::size_t s = 0; s < probability.size(); ++s)
    if (probability[s] == -1) {
      t.cells[high--].symbol = static_cast<std::uint16_t>(s);
      next[s] = 1;
    } else {
      next[s] = static_cast<std::uint32_t>(probability[s]);
    }
  const std::uint32_t step = (size >> 1) + (size >> 3) + 3;
  std::uint32_t pos = 0;
  for (std::size_t s = 0; s < probability.size(); ++s)
    for (int i = 0; i < probability[s]; ++i) {
      t.cells[pos].symbol = static_cast<std::uint16_t>(s);
      do pos = (pos + step) & (size - 1);
      while (pos > high);
    }
  if (pos != 0) return false;  // the probabilities did not fill the table
  for (auto& c : t.cells) {
    const std::uint32_t n = next[c.symbol]++;
    unsigned top = 0;
    while ((n >> (top + 1)) != 0) ++top;
    c.bits = static_cast<std::uint8_t>(log - top);
    c.base = static_cast<std::uint16_t>((n << c.bits) - size);
  }
  return true;
}

/// Reads an FSE table description (RFC 8878 4.1.1) at in[at..end): its accuracy at most max_log,
/// its symbols at most max_symbol. Returns the bytes it used, or 0 when it is malformed.
inline std::size_t read_fse(const byte* in, std::size_t size, unsigned max_log, unsigned max_symbol, fse_table& t) {
  std::uint64_t bit = 0;
  const auto bits = [&](unsigned n) -> std::uint32_t {  // forward, least significant first; 0 past the end
    std::uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i, ++bit)
      if ((bit >> 3) < size) v |= static_cast<std::uint32_t>(in[bit >> 3] >> (bit & 7) & 1) << i;
    return v;
  };
  const unsigned log = bits(4) + 5;
  if (log > max_log) return 0;
  std::vector<int> probability;
  std::int32_t remaining = (1 << log) + 1, threshold = 1 << log;
  unsigned width = log + 1;
  while (remaining > 1) {
    if (probability.size() > max_symbol) return 0;
    const std::int32_t max = 2 * threshold - 1 - remaining;
    std::int32_t value = static_cast<std::int32_t>(bits(width - 1));
    if (value >= max) {  // the value needs the full width
      value |= static_cast<std::int32_t>(bits(1)) << (width - 1);
      if (value >= threshold) value -= max;
    }
    const int p = value - 1;
    remaining -= p < 0 ? -p : p;
    probability.push_back(p);
    if (p == 0)  // zeros follow in 2-bit repeat counts, 3 meaning "and more"
      for (std::uint32_t repeat = 3; repeat == 3;) {
        repeat = bits(2);
        if (probability.size() + repeat > max_symbol + 1) return 0;
        probability.insert(probability.end(), repeat, 0);
      }
    while (remaining < threshold && width > 1) {
      --width;
      threshold >>= 1;
    }
  }
  const std::size_t used = static_cast<std::size_t>((bit + 7) >> 3);
  if (remaining != 1 || used > size || probability.size() > max_symbol + 1) return 0;
  return build_fse(probability, log, t) ? used : 0;
}

/// One FSE decoder's state over a backward stream.
struct fse_state {
  const fse_table* t = nullptr;
  std::uint32_t state = 0;
  void init(backward_bits& in) { state = static_cast<std::uint32_t>(in.read(t->log)); }
  std::uint16_t symbol() const { return t->cells[state].symbol; }
  void update(backward_bits& in) {
    const auto& c = t->cells[state];
    state = c.base + static_cast<std::uint32_t>(in.read(c.bits));
  }
};

/// A Huffman decoding table (RFC 8878 4.2): indexed by the next max_bits bits.
struct huffman_table {
  unsigned max_bits = 0;
  std::vector<byte> symbol, bits;
};

/// Builds it from the weights of symbols 0..n-2 (the last symbol's weight is implied).
inline bool build_huffman(std::vector<byte> weights, huffman_table& h) {
  std::uint32_t total = 0;
  for (const byte w : weights) {
    if (w > 11) return false;
    if (w) total += 1u << (w - 1);
  }
  if (total == 0 || weights.size() > 255) return false;
  unsigned max_bits = 1;
  while ((1u << max_bits) <= total) ++max_bits;
  if (max_bits > 11) return false;
  const std::uint32_t rest = (1u << max_bits) - total;
  if (rest & (rest - 1)) return false;  // the last weight must make a power of two
  unsigned last = 1;
  while ((1u << (last - 1)) < rest) ++last;
  weights.push_back(static_cast<byte>(last));
  h.max_bits = max_bits;
  h.symbol.assign(std::size_t{1} << max_bits, 0);
  h.bits.assign(std::size_t{1} << max_bits, 0);
  // The longest codes (weight 1) first, each weight's symbols in order, 2^(weight-1) cells each.
  std::uint32_t pos = 0;
  for (unsigned w = 1; w <= max_bits; ++w)
    for (std::size_t s = 0; s < weights.size(); ++s)
      if (weights[s] == w) {
        const std::uint32_t n = 1u << (w - 1);
        for (std::uint32_t i = 0; i < n; ++i) {
          h.symbol[pos + i] = static_cast<byte>(s);
          h.bits[pos + i] = static_cast<byte>(max_bits + 1 - w);
        }
        pos += n;
      }
  return pos == (1u << max_bits);
}

/// Reads a Huffman tree description; returns the bytes it used, or 0 when malformed.
inline std::size_t read_huffman(const byte* in, std::size_t size, huffman_table& h) {
  if (size == 0) return 0;
  const unsigned header = in[0];
  std::vector<byte> weights;
  std::size_t used = 0;
  if (header >= 128) {  // direct: 4-bit weights, two a byte, high nibble first
    const std::size_t n = header - 127, bytes = (n + 1) / 2;
    if (1 + bytes > size) return 0;
    for (std::size_t i = 0; i < n; ++i)
      weights.push_back(static_cast<byte>(i % 2 ? in[1 + i / 2] & 15 : in[1 + i / 2] >> 4));
    used = 1 + bytes;
  } else {  // FSE-compressed weights, two interleaved states
    if (header == 0 || 1 + std::size_t{header} > size) return 0;
    fse_table t;
    const std::size_t table = read_fse(in + 1, header, 6, 255, t);
    if (table == 0 || table >= header) return 0;
    backward_bits bits(in + 1 + table, header - table);
    if (!bits.start()) return 0;
    fse_state a{&t}, b{&t};
    a.init(bits);
    b.init(bits);
    for (;;) {
      if (weights.size() > 254) return 0;
      weights.push_back(static_cast<byte>(a.symbol()));
      a.update(bits);
      if (bits.overrun()) {
        weights.push_back(static_cast<byte>(b.symbol()));
        break;
      }
      weights.push_back(static_cast<byte>(b.symbol()));
      b.update(bits);
      if (bits.overrun()) {
        weights.push_back(static_cast<byte>(a.symbol()));
        break;
      }
    }
    used = 1 + header;
  }
  return build_huffman(std::move(weights), h) ? used : 0;
}

/// Decodes `n` Huffman-coded bytes from one stream into out; false unless the stream is used exactly.
inline bool huffman_stream(const huffman_table& h, const byte* in, std::size_t size, byte* out, std::size_t n) {
  backward_bits bits(in, size);
  if (!bits.start()) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::size_t>(bits.peek(h.max_bits));
    out[i] = h.symbol[v];
    bits.skip(h.bits[v]);
    if (bits.overrun()) return false;
  }
  return bits.done();
}

// Codes to values (RFC 8878 3.1.1.3.2.1.1): {baseline, extra bits}.
struct code_value {
  std::uint32_t base;
  std::uint8_t bits;
};
inline constexpr code_value literal_length_codes[36] = {
    {0, 0},   {1, 0},   {2, 0},     {3, 0},     {4, 0},     {5, 0},     {6, 0},      {7, 0},      {8, 0},
    {9, 0},   {10, 0},  {11, 0},    {12, 0},    {13, 0},    {14, 0},    {15, 0},     {16, 1},     {18, 1},
    {20, 1},  {22, 1},  {24, 2},    {28, 2},    {32, 3},    {40, 3},    {48, 4},     {64, 6},     {128, 7},
    {256, 8}, {512, 9}, {1024, 10}, {2048, 11}, {4096, 12}, {8192, 13}, {16384, 14}, {32768, 15}, {65536, 16}};
inline constexpr code_value match_length_codes[53] = {
    {3, 0},   {4, 0},     {5, 0},     {6, 0},     {7, 0},     {8, 0},      {9, 0},      {10, 0},    {11, 0},
    {12, 0},  {13, 0},    {14, 0},    {15, 0},    {16, 0},    {17, 0},     {18, 0},     {19, 0},    {20, 0},
    {21, 0},  {22, 0},    {23, 0},    {24, 0},    {25, 0},    {26, 0},     {27, 0},     {28, 0},    {29, 0},
    {30, 0},  {31, 0},    {32, 0},    {33, 0},    {34, 0},    {35, 1},     {37, 1},     {39, 1},    {41, 1},
    {43, 2},  {47, 2},    {51, 3},    {59, 3},    {67, 4},    {83, 4},     {99, 5},     {131, 7},   {259, 8},
    {515, 9}, {1027, 10}, {2051, 11}, {4099, 12}, {8195, 13}, {16387, 14}, {32771, 15}, {65539, 16}};

// The predefined distributions (RFC 8878 3.1.1.3.2.2).
inline const std::vector<int> predefined_literal_lengths = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1,  1,  2,  2,
                                                            2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
inline const std::vector<int> predefined_match_lengths = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1,  1,  1,  1,  1,  1,  1, 1,
                                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1,
                                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
inline const std::vector<int> predefined_offsets = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1,  1,  1,  1,  1, 1,
                                                    1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

/// What a frame carries from block to block: the tables a later block may repeat, the repeat offsets.
struct frame_state {
  huffman_table huffman;
  bool has_huffman = false;
  fse_table tables[3];  // literal lengths, offsets, match lengths
  bool has_table[3] = {false, false, false};
  std::uint64_t repeat[3] = {1, 4, 8};
};

/// The output: a fixed buffer of the declared size, written front to back, with `slack` bytes past
/// its end that copies may scribble on (they move 8 bytes at a time).
struct sink {
  static constexpr std::size_t slack = 8;
  byte* data;
  std::uint64_t size, used = 0;
  std::uint64_t enough = ~std::uint64_t{0};  // stop once this much is out (after a block or a sequence)
  bool full() const { return used >= enough; }
  bool room(std::uint64_t n) const { return n <= size - used; }
  /// Copies n bytes from src (that has 7 readable bytes past them), n <= room.
  void append(const byte* src, std::size_t n) {
    byte* dst = data + used;
    for (std::size_t k = 0; k < n; k += 8) std::memcpy(dst + k, src + k, 8);
    used += n;
  }
  /// Repeats the n bytes that start `offset` back (0 < offset <= used), n <= room: they may overlap
  /// what it writes, which then repeats.
  void repeat(std::uint64_t offset, std::size_t n) {
    byte* dst = data + used;
    const byte* src = dst - offset;
    if (offset >= 8) {
      for (std::size_t k = 0; k < n; k += 8) std::memcpy(dst + k, src + k, 8);
    } else {
      for (std::size_t k = 0; k < n; ++k) dst[k] = src[k];
    }
    used += n;
  }
};

inline constexpr std::size_t max_block = 128 * 1024;

/// One compressed block (RFC 8878 3.1.1.3) at in[0..size), `at` its offset for messages.
inline failure compressed_block(const byte* in, std::size_t size, std::uint64_t at, frame_state& f, sink& out,
                                std::vector<byte>& literals) {
  // Literals section.
  if (size < 1) return fail(at, "a compressed block with no literals section");
  const unsigned type = in[0] & 3, format = in[0] >> 2 & 3;
  std::size_t header = 0, regenerated = 0, compressed = 0;
  bool four = false;
  if (type < 2) {
    header = format == 1 ? 2 : format == 3 ? 3 : 1;
    if (size < header) return fail(at, "a literals section header cut off by the end of its block");
    regenerated = format == 1   ? (in[0] >> 4) + (std::size_t{in[1]} << 4)
                  : format == 3 ? (in[0] >> 4) + (std::size_t{in[1]} << 4) + (std::size_t{in[2]} << 12)
                                : std::size_t{in[0]} >> 3;
    compressed = type == 0 ? regenerated : 1;
  } else {
    header = format < 2 ? 3 : format == 2 ? 4 : 5;
    if (size < header) return fail(at, "a literals section header cut off by the end of its block");
    std::uint64_t v = 0;
    for (std::size_t i = header; i-- > 0;) v = v << 8 | in[i];
    const unsigned width = format < 2 ? 10 : format == 2 ? 14 : 18;
    regenerated = static_cast<std::size_t>(v >> 4 & ((1u << width) - 1));
    compressed = static_cast<std::size_t>(v >> (4 + width) & ((1u << width) - 1));
    four = format != 0;
  }
  if (regenerated > max_block) return fail(at, "literals of more than 128 KiB in one block");
  if (compressed > size - header) return fail(at, "a literals section that runs past the end of its block");
  const byte* lit = in + header;
  literals.resize(regenerated + sink::slack);  // append() reads 8 bytes at a time
  if (type == 0) {
    if (regenerated) std::memcpy(literals.data(), lit, regenerated);
  } else if (type == 1) {
    if (regenerated) std::memset(literals.data(), lit[0], regenerated);
  } else {
    std::size_t tree = 0;
    if (type == 2) {
      tree = read_huffman(lit, compressed, f.huffman);
      if (tree == 0) return fail(at + header, "a malformed Huffman tree description");
      f.has_huffman = true;
    } else if (!f.has_huffman) {
      return fail(at, "literals that repeat a Huffman table no earlier block gave");
    }
    const byte* streams = lit + tree;
    const std::size_t streams_size = compressed - tree;
    if (!four) {
      if (!huffman_stream(f.huffman, streams, streams_size, literals.data(), regenerated))
        return fail(at + header + tree, "a corrupt Huffman-coded literals stream");
    } else {
      if (streams_size < 6) return fail(at + header + tree, "four literals streams without their jump table");
      std::size_t sizes[4];
      std::size_t sum = 0;
      for (int i = 0; i < 3; ++i) sum += sizes[i] = streams[2 * i] | std::size_t{streams[2 * i + 1]} << 8;
      if (sum > streams_size - 6) return fail(at + header + tree, "a literals jump table past the end of its streams");
      sizes[3] = streams_size - 6 - sum;
      const std::size_t part = (regenerated + 3) / 4;
      if (3 * part > regenerated) return fail(at + header, "four literals streams for fewer than four bytes");
      std::size_t from = 6, to = 0;
      for (int i = 0; i < 4; ++i) {
        const std::size_t n = i < 3 ? part : regenerated - 3 * part;
        if (!huffman_stream(f.huffman, streams + from, sizes[i], literals.data() + to, n))
          return fail(at + header + tree + from, "a corrupt Huffman-coded literals stream");
        from += sizes[i];
        to += n;
      }
    }
  }
  // Sequences section.
  std::size_t p = header + compressed;
  if (p >= size) return fail(at + p, "a compressed block without its sequences section");
  std::uint32_t count = in[p];
  if (count == 0) {
    ++p;
  } else if (count < 128) {
    ++p;
  } else if (count < 255) {
    if (size - p < 2) return fail(at + p, "a sequence count cut off");
    count = ((count - 128) << 8) + in[p + 1];
    p += 2;
  } else {
    if (size - p < 3) return fail(at + p, "a sequence count cut off");
    count = in[p + 1] + (std::uint32_t{in[p + 2]} << 8) + 0x7F00;
    p += 3;
  }
  std::size_t literal = 0;  // next literal to copy
  const std::uint64_t block_start = out.used;
  const auto copy_literals = [&](std::size_t n) {
    out.append(literals.data() + literal, n);
    literal += n;
  };
  if (count == 0) {
    if (p != size) return fail(at + p, "bytes after a block's last section");
    if (!out.room(regenerated)) return fail(at, "more output than the image's declared size");
    copy_literals(regenerated);
    return std::nullopt;
  }
  if (p >= size) return fail(at + p, "sequences without their compression modes");
  const unsigned modes = in[p++];
  if (modes & 3) return fail(at + p - 1, "reserved bits set in the sequence compression modes");
  static const std::vector<int>* const predefined[3] = {&predefined_literal_lengths, &predefined_offsets,
                                                        &predefined_match_lengths};
  static const unsigned max_log[3] = {9, 8, 9}, max_symbol[3] = {35, 31, 52}, predefined_log[3] = {6, 5, 6};
  static const char* const names[3] = {"literal lengths", "offsets", "match lengths"};
  fse_table rle[3];
  const fse_table* use[3];
  for (int k = 0; k < 3; ++k) {
    const unsigned mode = modes >> (6 - 2 * k) & 3;
    if (mode == 0) {
      if (!build_fse(*predefined[k], predefined_log[k], f.tables[k]))
        return fail(at + p, "internal: a predefined table");
      f.has_table[k] = true;
    } else if (mode == 1) {
      if (p >= size || in[p] > max_symbol[k])
        return fail(at + p, std::string("an RLE code for ") + names[k] + " that is cut off or out of range");
      rle[k].log = 0;
      rle[k].cells.assign(1, {});
      rle[k].cells[0].symbol = in[p++];
      use[k] = &rle[k];
      continue;
    } else if (mode == 2) {
      const std::size_t n = read_fse(in + p, size - p, max_log[k], max_symbol[k], f.tables[k]);
      if (n == 0) return fail(at + p, std::string("a malformed FSE table for ") + names[k]);
      p += n;
      f.has_table[k] = true;
    } else if (!f.has_table[k]) {
      return fail(at + p, std::string("a repeated table for ") + names[k] + " that no earlier block gave");
    }
    use[k] = &f.tables[k];
  }
  backward_bits bits(in + p, size - p);
  if (!bits.start()) return fail(at + p, "a sequences bit stream without its end mark");
  fse_state ll{use[0]}, of{use[1]}, ml{use[2]};
  ll.init(bits);
  of.init(bits);
  ml.init(bits);
  for (std::uint32_t i = 0; i < count; ++i) {
    const unsigned of_code = of.symbol(), ml_code = ml.symbol(), ll_code = ll.symbol();
    if (of_code > 31 || ml_code > 52 || ll_code > 35) return fail(at + p, "a sequence code out of range");
    std::uint64_t offset = (std::uint64_t{1} << of_code) + bits.read(of_code);
    const std::uint64_t match = match_length_codes[ml_code].base + bits.read(match_length_codes[ml_code].bits);
    const std::uint64_t lits = literal_length_codes[ll_code].base + bits.read(literal_length_codes[ll_code].bits);
    if (offset > 3) {
      offset -= 3;
      f.repeat[2] = f.repeat[1];
      f.repeat[1] = f.repeat[0];
      f.repeat[0] = offset;
    } else {
      const unsigned index = static_cast<unsigned>(offset) - (lits == 0 ? 0 : 1);  // 0..3; 3 is repeat[0] - 1
      if (index == 0) {
        offset = f.repeat[0];
      } else {
        offset = index == 3 ? f.repeat[0] - 1 : f.repeat[index];
        if (index != 1) f.repeat[2] = f.repeat[1];
        f.repeat[1] = f.repeat[0];
        f.repeat[0] = offset;
      }
    }
    if (i + 1 < count) {
      ll.update(bits);
      ml.update(bits);
      of.update(bits);
    }
    if (bits.overrun()) return fail(at + p, "a sequences bit stream that ends too soon");
    if (lits > regenerated - literal) return fail(at + p, "a sequence that uses more literals than the block has");
    if (!out.room(lits + match)) return fail(at + p, "more output than the image's declared size");
    copy_literals(static_cast<std::size_t>(lits));
    if (offset == 0 || offset > out.used) return fail(at + p, "a match that reaches before the start of the output");
    out.repeat(offset, static_cast<std::size_t>(match));
  }
  if (!bits.done()) return fail(at + p, "bits left over after a block's last sequence");
  if (!out.room(regenerated - literal)) return fail(at, "more output than the image's declared size");
  copy_literals(regenerated - literal);
  if (out.used - block_start > max_block) return fail(at, "a Zstandard block that decodes to more than 128 KiB");
  return std::nullopt;
}

/// Every frame in `in` (RFC 8878 3.1), into out; skippable frames skipped.
inline failure frames(const byte* in, std::size_t size, sink& out) {
  std::size_t p = 0;
  std::vector<byte> literals;
  if (size == 0) return fail(0, "no Zstandard frame");
  while (p < size) {
    if (size - p < 4) return fail(p, "a Zstandard frame cut off before its magic");
    const std::uint32_t magic = in[p] | std::uint32_t{in[p + 1]} << 8 | std::uint32_t{in[p + 2]} << 16 |
                                std::uint32_t{in[p + 3]} << 24;
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // a skippable frame: magic, u32 size, bytes
      if (size - p < 8) return fail(p, "a skippable frame cut off");
      const std::uint64_t n = in[p + 4] | std::uint64_t{in[p + 5]} << 8 | std::uint64_t{in[p + 6]} << 16 |
                              std::uint64_t{in[p + 7]} << 24;
      if (n > size - p - 8) return fail(p, "a skippable frame that runs past the end");
      p += 8 + static_cast<std::size_t>(n);
      continue;
    }
    if (magic != 0xFD2FB528u) return fail(p, "not a Zstandard frame (no magic 28 b5 2f fd)");
    p += 4;
    if (p >= size) return fail(p, "a Zstandard frame header cut off");
    const unsigned d = in[p];
    if (d & 0x08) return fail(p, "a Zstandard frame header with its reserved bit set");
    const bool single = d & 0x20, checksum = d & 0x04;
    const unsigned dict = d & 3, fcs = d >> 6;
    const std::size_t dict_bytes = dict == 3 ? 4 : dict, fcs_bytes = fcs == 0 ? (single ? 1 : 0) : std::size_t{1} << fcs;
    const std::size_t header = 1 + (single ? 0 : 1) + dict_bytes + fcs_bytes;
    if (size - p < header) return fail(p, "a Zstandard frame header cut off");
    std::uint64_t dict_id = 0, content = 0;
    for (std::size_t i = dict_bytes; i-- > 0;) dict_id = dict_id << 8 | in[p + 1 + (single ? 0 : 1) + i];
    if (dict_id != 0) return fail(p, "a Zstandard frame that needs a dictionary");
    for (std::size_t i = fcs_bytes; i-- > 0;) content = content << 8 | in[p + header - fcs_bytes + i];
    if (fcs_bytes == 2) content += 256;
    p += header;
    const std::uint64_t start = out.used;
    frame_state f;
    for (bool last = false; !last;) {
      if (size - p < 3) return fail(p, "a Zstandard block header cut off");
      const std::uint32_t h = in[p] | std::uint32_t{in[p + 1]} << 8 | std::uint32_t{in[p + 2]} << 16;
      last = h & 1;
      const unsigned type = h >> 1 & 3;
      const std::size_t n = h >> 3, block_at = p;
      p += 3;
      if (type == 3) return fail(block_at, "a Zstandard block of the reserved type 3");
      if (n > max_block) return fail(block_at, "a Zstandard block of more than 128 KiB");
      const std::size_t stored = type == 1 ? 1 : n;
      if (stored > size - p) return fail(block_at, "a Zstandard block that runs past the end of the image");
      if (type == 0 || type == 1) {
        if (!out.room(n)) return fail(block_at, "more output than the image's declared size");
        if (n && type == 0) std::memcpy(out.data + out.used, in + p, n);
        else if (n) std::memset(out.data + out.used, in[p], n);
        out.used += n;
      } else if (auto e = compressed_block(in + p, n, p, f, out, literals)) {
        return e;
      }
      p += stored;
      if (out.full()) return std::nullopt;  // a prefix was asked for: the rest is not decoded
    }
    if (fcs_bytes && out.used - start != content)
      return fail(p, "a Zstandard frame whose content differs from the size its header declares");
    if (checksum) {
      if (size - p < 4) return fail(p, "a Zstandard frame's checksum cut off");
      p += 4;  // not checked: the cubin's own structure is read next
    }
  }
  return std::nullopt;
}

}  // namespace zstd

/// An LZ4 block (no frame): sequences of {token, literals, u16 offset, match}, the last one literals only.
inline std::optional<decompress_failure> lz4_block(const unsigned char* in, std::size_t size, zstd::sink& out) {
  std::size_t p = 0;
  const auto length = [&](std::uint64_t n, std::uint64_t& v) {  // 15 in the token: 255s and one byte more follow
    v = n;
    if (n != 15) return true;
    for (;;) {
      if (p >= size) return false;
      const unsigned char b = in[p++];
      v += b;
      if (v > out.size) return false;  // longer than any output: stop before counting on
      if (b != 255) return true;
    }
  };
  while (p < size) {
    const std::size_t at = p;
    const unsigned token = in[p++];
    std::uint64_t lits = 0, match = 0;
    if (!length(token >> 4, lits) || lits > size - p)
      return zstd::fail(at, "LZ4 literals that run past the end of the image");
    if (!out.room(lits)) return zstd::fail(at, "more output than the image's declared size");
    if (lits) std::memcpy(out.data + out.used, in + p, static_cast<std::size_t>(lits));  // in has no slack
    out.used += lits;
    p += static_cast<std::size_t>(lits);
    if (p == size) break;  // the last sequence: literals only
    if (size - p < 2) return zstd::fail(p, "an LZ4 match offset cut off");
    const std::uint64_t offset = in[p] | std::uint64_t{in[p + 1]} << 8;
    p += 2;
    if (!length(token & 15, match)) return zstd::fail(at, "an LZ4 match length cut off");
    match += 4;
    if (offset == 0 || offset > out.used)
      return zstd::fail(p - 2, "an LZ4 match that reaches before the start of the output");
    if (!out.room(match)) return zstd::fail(at, "more output than the image's declared size");
    out.repeat(offset, static_cast<std::size_t>(match));
    if (out.full()) break;  // a prefix was asked for: the rest is not decoded
  }
  return std::nullopt;
}

}  // namespace detail

/// The formats of a fatbin entry's flags (@40).
enum class compression : unsigned char { none, lz4, zstd };
inline constexpr std::string_view compression_names[] = {"none", "LZ4", "Zstandard"};
constexpr std::string_view to_string(compression c) noexcept {
  return compression_names[static_cast<unsigned char>(c)];
}
inline constexpr std::uint64_t fatbin_flag_lz4 = 0x2000u, fatbin_flag_zstd = 0x8000u;
constexpr compression compression_of_flags(std::uint64_t flags) noexcept {
  return flags & fatbin_flag_zstd ? compression::zstd : flags & fatbin_flag_lz4 ? compression::lz4 : compression::none;
}

namespace detail {

/// Decodes `in` (format `c`, declaring `size` bytes) into buf (size + sink::slack bytes), stopping
/// once `enough` bytes are out; `used`: how many are. A failure for a size over the cap or more than
/// the bytes can hold, malformed bytes, or (decoded to the end) another size than declared.
inline std::optional<decompress_failure> decode(compression c, std::string_view in, std::uint64_t size,
                                                std::uint64_t enough, unsigned char* buf, std::uint64_t& used) {
  used = 0;
  if (size > max_decompressed_image)
    return decompress_failure{0, "it declares " + std::to_string(size) + " bytes uncompressed, more than the " +
                                     std::to_string(max_decompressed_image >> 20) + " MiB cuarch decompresses"};
  // Each stored byte yields at most 32 KiB (a Zstandard RLE block) or 256 bytes (LZ4): a larger claim is a lie.
  const std::uint64_t ratio = c == compression::zstd ? 32768 : 256;
  if (size / ratio > in.size())
    return decompress_failure{0, "it declares " + std::to_string(size) + " bytes uncompressed, more than its " +
                                     std::to_string(in.size()) + " compressed bytes can hold"};
  zstd::sink s{buf, size};
  s.enough = enough;
  const auto* bytes = reinterpret_cast<const unsigned char*>(in.data());
  auto e = c == compression::zstd  ? zstd::frames(bytes, in.size(), s)
           : c == compression::lz4 ? lz4_block(bytes, in.size(), s)
                                   : std::optional<decompress_failure>(decompress_failure{0, "not compressed"});
  if (!e && !s.full() && s.used != size)
    e = decompress_failure{in.size(), "it decompresses to " + std::to_string(s.used) + " bytes, not the " +
                                          std::to_string(size) + " its entry declares"};
  used = e ? 0 : s.used;
  return e;
}

}  // namespace detail

/// Decompresses `in` (format `c`) into exactly `size` bytes (the size its entry declares), in `out`.
/// A failure when size exceeds max_decompressed_image, when the bytes are malformed, or when they
/// decode to more or fewer bytes than `size`.
inline std::optional<decompress_failure> decompress(compression c, std::string_view in, std::uint64_t size,
                                                    std::string& out) {
  out.clear();
  if (size > max_decompressed_image) size = max_decompressed_image + 1;  // refused by decode(), not allocated
  else out.resize(static_cast<std::size_t>(size) + detail::zstd::sink::slack);
  std::uint64_t used = 0;
  auto e = detail::decode(c, in, size, ~std::uint64_t{0}, reinterpret_cast<unsigned char*>(&out[0]), used);
  out.resize(static_cast<std::size_t>(used));
  return e;
}

/// The first `want` bytes or more (up to a block or a sequence past them) of what `in` decompresses
/// to, or all of it when shorter: a cubin's header and notes without decoding its code. The buffer
/// is allocated for `size` but not filled, so the pages past the prefix are never touched. The same
/// checks as decompress() on what is decoded.
inline std::optional<decompress_failure> decompress_prefix(compression c, std::string_view in, std::uint64_t size,
                                                           std::uint64_t want, std::string& out) {
  out.clear();
  if (size > max_decompressed_image) size = max_decompressed_image + 1;  // refused by decode(), not allocated
  std::unique_ptr<unsigned char[]> buf(
      size > max_decompressed_image ? nullptr : new (std::nothrow) unsigned char[size + detail::zstd::sink::slack]);
  if (!buf && size <= max_decompressed_image)
    return decompress_failure{0, "no memory for " + std::to_string(size) + " bytes"};
  std::uint64_t used = 0;
  auto e = detail::decode(c, in, size, want, buf.get(), used);
  out.assign(reinterpret_cast<const char*>(buf.get()), static_cast<std::size_t>(used));
  return e;
}

CUARCH_END_NAMESPACE
