#include "snapshot.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/report.hpp"

namespace wave {

Snapshot downsample(const std::vector<float>& field, int nx, int ny, int max_side) {
  Snapshot s;
  s.stride = std::max(1, (std::max(nx, ny) + max_side - 1) / max_side);
  s.width = nx / s.stride;
  s.height = ny / s.stride;
  s.values.resize(static_cast<std::size_t>(s.width) * s.height);
  for (int j = 0; j < s.height; ++j)
    for (int i = 0; i < s.width; ++i) {
      double sum = 0;
      for (int dy = 0; dy < s.stride; ++dy)
        for (int dx = 0; dx < s.stride; ++dx)
          sum += field[static_cast<std::size_t>(j * s.stride + dy) * nx + static_cast<std::size_t>(i * s.stride + dx)];
      s.values[static_cast<std::size_t>(j) * s.width + i] = static_cast<float>(sum / (s.stride * s.stride));
    }
  return s;
}

std::string base64(const std::vector<unsigned char>& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned v = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                       (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[v & 63] : '=';
  }
  return out;
}

nlohmann::json snapshot_metadata(const Problem& p, int steps, const Snapshot& s) {
  return {{"nx", p.nx},         {"ny", p.ny},
          {"step", steps},      {"time_s", steps * p.dt_s},
          {"spacing_m", p.spacing_m}, {"dt_s", p.dt_s},
          {"velocity", to_string(p.model)}, {"sponge_width", p.sponge_width},
          {"source_x", p.source_x}, {"source_y", p.source_y},
          {"stride", s.stride}, {"width", s.width}, {"height", s.height}};
}

std::string npy_bytes(const Snapshot& s) {
  // Magic, version 1.0, a little-endian 16-bit header length, then a Python dict literal padded with
  // spaces and a newline so that the data starts on a 64-byte boundary (what NumPy writes itself).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(s.height) + ", " +
                       std::to_string(s.width) + "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<unsigned short>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += header;
  const std::size_t data_at = out.size();
  out.resize(data_at + s.values.size() * sizeof(float));
  static_assert(std::endian::native == std::endian::little, "the header says '<f4': little-endian floats");
  std::memcpy(out.data() + data_at, s.values.data(), s.values.size() * sizeof(float));
  return out;
}

void write_snapshot_files(const std::string& path, const nlohmann::json& meta, const Snapshot& s) {
  course::write_file_atomically(path, npy_bytes(s));
  course::write_file_atomically(path + ".json", meta.dump(2) + "\n");
}

nlohmann::json embedded_snapshot(nlohmann::json meta, const Snapshot& s) {
  float peak = 0;
  for (float v : s.values) peak = std::max(peak, std::fabs(v));
  std::vector<unsigned char> q(s.values.size());
  for (std::size_t i = 0; i < q.size(); ++i)
    q[i] = static_cast<unsigned char>(std::lround(128.0 + 127.0 * (peak > 0 ? s.values[i] / peak : 0.0)));
  meta["peak"] = peak;
  meta["encoding"] = "uint8: value = (byte - 128) / 127 * peak";
  meta["data_base64"] = base64(q);
  return meta;
}

}  // namespace wave
