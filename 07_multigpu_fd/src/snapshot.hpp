/// \file snapshot.hpp
/// \brief The wavefield as a picture: block-averaged to a small grid, written as a NumPy .npy file with
/// its metadata beside it, and embedded (8-bit, base64) in the results file for the lesson's images.
/// Pure host code.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "physics.hpp"

namespace wave {

/// A downsampled copy of the field: averages of stride × stride blocks, row-major, height × width.
struct Snapshot {
  int width = 0, height = 0, stride = 1;
  std::vector<float> values;
};

/// Averages `field` (nx × ny, row-major) over the smallest square blocks that leave no side longer than
/// `max_side`; cells past the last whole block are dropped.
Snapshot downsample(const std::vector<float>& field, int nx, int ny, int max_side);

/// What the picture shows: the problem, the step, and the downsampling.
nlohmann::json snapshot_metadata(const Problem& p, int steps, const Snapshot& s);

/// The bytes of a NumPy .npy file (format 1.0) holding `s` as float32, height × width.
std::string npy_bytes(const Snapshot& s);

/// Writes `path` (.npy) and `path`.json (the metadata), each atomically.
void write_snapshot_files(const std::string& path, const nlohmann::json& meta, const Snapshot& s);

/// The copy kept in the results file: 8-bit values, symmetric around 128, scaled by the largest
/// magnitude, base64-encoded, with `meta`.
nlohmann::json embedded_snapshot(nlohmann::json meta, const Snapshot& s);

/// Standard base64 (RFC 4648, with '=' padding).
std::string base64(const std::vector<unsigned char>& bytes);

}  // namespace wave
