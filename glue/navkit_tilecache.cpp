// navkit's own C++ glue for Detour's tile cache: the three interfaces dtTileCache calls back
// into (compressor, mesh process, allocator), implemented by navkit.
// Compiled by navkit's build.rs. Everything here is navkit's own code.
//
// - NavkitCompressor: dtTileCacheCompressor whose work is done by Rust callbacks (FastLZ, as
//   RecastDemo, or LZ4 block format through the lz4_flex crate; the navkit_lz4_* callback types
//   serve both). Decompression fails on corrupt input and never writes
//   past the buffer it is given; inside the tile cache it also fails unless the layer grids
//   come out at exactly their size.
// - NavkitMeshProcess: dtTileCacheMeshProcess giving polygons RecastDemo's areas and flags (from
//   a 64-entry area -> flags table passed by Rust) and every tile the level's off-mesh
//   connections (copied into the object).
// - NavkitTileCacheAlloc: dtTileCacheAlloc on dtAlloc/dtFree with one guard. Detour's
//   dtBuildTileCacheRegions keeps at most 16 neighbours per layer region in a fixed array and
//   does not check the bound (upstream issue #452): a comb of walkable cells (from layer data,
//   or from a row of small obstacles) overflows it. Before that function's first allocation the
//   allocator replays its region sweep on the (decompressed, obstacle-marked) layer, and refuses
//   the allocation when a region would get more than 16 neighbour entries, so the tile build
//   fails cleanly with DT_OUT_OF_MEMORY instead of writing out of bounds.

#include "DetourAlloc.h"
#include "DetourNavMeshBuilder.h"
#include "DetourStatus.h"
#include "DetourTileCache.h"
#include "DetourTileCacheBuilder.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

extern "C" {
typedef int (*navkit_lz4_max_fn)(int input_size);
typedef int (*navkit_lz4_fn)(const unsigned char* in, int in_size, unsigned char* out, int out_cap,
                             int* out_size);
}

namespace {

int align4(int x) { return (x + 3) & ~3; }

class NavkitCompressor : public dtTileCacheCompressor {
 public:
  NavkitCompressor(navkit_lz4_max_fn max_fn, navkit_lz4_fn compress_fn, navkit_lz4_fn decompress_fn)
      : m_max(max_fn), m_compress(compress_fn), m_decompress(decompress_fn) {}
  ~NavkitCompressor() override {}

  int maxCompressedSize(const int bufferSize) override {
    if (bufferSize < 0) return 0;
    return m_max(bufferSize);
  }

  dtStatus compress(const unsigned char* buffer, const int bufferSize, unsigned char* compressed,
                    const int maxCompressedSize, int* compressedSize) override {
    if (!buffer || !compressed || !compressedSize || bufferSize < 0 || maxCompressedSize < 0)
      return DT_FAILURE | DT_INVALID_PARAM;
    int n = 0;
    if (!m_compress(buffer, bufferSize, compressed, maxCompressedSize, &n))
      return DT_FAILURE | DT_BUFFER_TOO_SMALL;
    *compressedSize = n;
    return DT_SUCCESS;
  }

  dtStatus decompress(const unsigned char* compressed, const int compressedSize,
                      unsigned char* buffer, const int maxBufferSize, int* bufferSize) override {
    if (!compressed || !buffer || !bufferSize || compressedSize < 0 || maxBufferSize < 0)
      return DT_FAILURE | DT_INVALID_PARAM;
    int n = 0;
    if (!m_decompress(compressed, compressedSize, buffer, maxBufferSize, &n))
      return DT_FAILURE | DT_INVALID_PARAM;
    // dtDecompressTileCacheLayer hands over room for four grids (heights, areas, cons and the
    // regions it computes) and expects the first three: anything else is corrupt data.
    if (maxBufferSize % 4 != 0 || n != maxBufferSize / 4 * 3) return DT_FAILURE | DT_INVALID_PARAM;
    *bufferSize = n;
    return DT_SUCCESS;
  }

 private:
  navkit_lz4_max_fn m_max;
  navkit_lz4_fn m_compress;
  navkit_lz4_fn m_decompress;
};

class NavkitMeshProcess : public dtTileCacheMeshProcess {
 public:
  explicit NavkitMeshProcess(const unsigned short* flagTable) {
    for (int i = 0; i < 64; ++i) m_flags[i] = flagTable ? flagTable[i] : 0;
  }
  ~NavkitMeshProcess() override {}

  void setOffMesh(const float* verts, const float* rads, const unsigned char* dirs,
                  const unsigned char* areas, const unsigned short* flags, const unsigned int* ids,
                  int n) {
    if (n < 0) n = 0;
    m_verts.assign(verts, verts + (size_t)n * 6);
    m_rads.assign(rads, rads + n);
    m_dirs.assign(dirs, dirs + n);
    m_areas.assign(areas, areas + n);
    m_conFlags.assign(flags, flags + n);
    m_ids.assign(ids, ids + n);
  }

  void process(struct dtNavMeshCreateParams* params, unsigned char* polyAreas,
               unsigned short* polyFlags) override {
    for (int i = 0; i < params->polyCount; ++i) {
      // Recast's walkable area becomes ground, as in RecastDemo.
      if (polyAreas[i] == DT_TILECACHE_WALKABLE_AREA) polyAreas[i] = 0;
      polyFlags[i] = m_flags[polyAreas[i] & 0x3f];
    }
    if (!m_ids.empty()) {
      params->offMeshConVerts = m_verts.data();
      params->offMeshConRad = m_rads.data();
      params->offMeshConDir = m_dirs.data();
      params->offMeshConAreas = m_areas.data();
      params->offMeshConFlags = m_conFlags.data();
      params->offMeshConUserID = m_ids.data();
      params->offMeshConCount = (int)m_ids.size();
    }
  }

 private:
  unsigned short m_flags[64];
  std::vector<float> m_verts;
  std::vector<float> m_rads;
  std::vector<unsigned char> m_dirs;
  std::vector<unsigned char> m_areas;
  std::vector<unsigned short> m_conFlags;
  std::vector<unsigned int> m_ids;
};

// Detour's DT_LAYER_MAX_NEIS (a file-local constant of DetourTileCacheBuilder.cpp).
const int kMaxRegionNeighbours = 16;

// Replays the region partition of dtBuildTileCacheRegions on a w x h layer (same sweep, same
// merge rule, same 8-bit counters) and checks the neighbour lists it would fill: false if any
// region would get more than kMaxRegionNeighbours entries. True also when Detour would give up
// on its own (more than 255 regions: it returns DT_BUFFER_TOO_SMALL before any neighbour list).
bool regionNeighboursFit(int w, int h, const unsigned char* heights, const unsigned char* areas,
                         int climb) {
  if (w <= 0 || h <= 0) return true;
  const unsigned char none = 0xff;
  std::vector<unsigned char> reg((size_t)w * h, none);
  struct Sweep {
    unsigned short samples;  // cells connected to the single region below
    unsigned char id;        // region id given to the sweep
    unsigned char below;     // the single region below, or none
  };
  std::vector<Sweep> sweeps(w);
  unsigned char below[256];
  int regions = 0;
  auto linked = [&](int a, int b) {
    return areas[a] == areas[b] && std::abs((int)heights[a] - (int)heights[b]) <= climb;
  };
  for (int y = 0; y < h; ++y) {
    std::memset(below, 0, sizeof(below));
    int nsweeps = 0;
    for (int x = 0; x < w; ++x) {
      const int i = x + y * w;
      if (areas[i] == DT_TILECACHE_NULL_AREA) continue;
      int s = -1;
      if (x > 0 && linked(i, i - 1) && reg[i - 1] != none) s = reg[i - 1];
      if (s < 0) {
        s = nsweeps++;
        sweeps[s].below = none;
        sweeps[s].samples = 0;
      }
      if (y > 0 && linked(i, i - w)) {
        const unsigned char r = reg[i - w];
        if (r != none) {
          if (sweeps[s].samples == 0) sweeps[s].below = r;
          if (sweeps[s].below == r) {
            sweeps[s].samples++;
            below[r]++;  // 8-bit on purpose: Detour's counter wraps the same way
          } else {
            sweeps[s].below = none;
          }
        }
      }
      reg[i] = (unsigned char)s;
    }
    for (int s = 0; s < nsweeps; ++s) {
      if (sweeps[s].below != none && (unsigned short)below[sweeps[s].below] == sweeps[s].samples) {
        sweeps[s].id = sweeps[s].below;
      } else {
        if (regions == 255) return true;
        sweeps[s].id = (unsigned char)regions++;
      }
    }
    for (int x = 0; x < w; ++x) {
      const int i = x + y * w;
      if (reg[i] != none) reg[i] = sweeps[reg[i]].id;
    }
  }
  std::vector<unsigned char> count(regions, 0);
  std::vector<unsigned char> last(regions, 0);
  auto record = [&](unsigned char r, unsigned char n) {
    if (count[r] > 0 && last[r] == n) return true;
    if (count[r] >= kMaxRegionNeighbours) return false;
    last[r] = n;
    count[r]++;
    return true;
  };
  for (int y = 1; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int i = x + y * w;
      const unsigned char r = reg[i];
      if (r == none || !linked(i, i - w)) continue;
      const unsigned char n = reg[i - w];
      if (n == none || n == r) continue;
      if (!record(r, n) || !record(n, r)) return false;
    }
  }
  return true;
}

class NavkitTileCacheAlloc : public dtTileCacheAlloc {
 public:
  NavkitTileCacheAlloc(float walkableClimb, float ch)
      : m_climb(ch > 0 ? (int)(walkableClimb / ch) : 0) {}
  ~NavkitTileCacheAlloc() override {}

  void reset() override {
    m_builds++;  // dtTileCache::buildNavMeshTile resets once per tile layer it builds
    m_count = 0;
    m_layer = 0;
    m_layerSize = 0;
  }

  void* alloc(const size_t size) override {
    // dtTileCache::buildNavMeshTile resets the allocator, decompresses the layer into one
    // allocation, marks the obstacles in it, and then dtBuildTileCacheRegions makes its first
    // allocation (the sweep spans, 4 bytes per column): the moment to check the layer.
    if (m_count == 1 && m_layer) {
      m_count++;
      m_checks++;
      if (!layerIsSafe(size)) {
        m_refused++;
        return 0;
      }
    } else {
      m_count++;
    }
    void* p = dtAlloc(size, DT_ALLOC_TEMP);
    if (m_count == 1) {
      m_layer = (unsigned char*)p;
      m_layerSize = size;
    }
    return p;
  }

  void free(void* ptr) override {
    if (ptr == m_layer) m_layer = 0;
    dtFree(ptr);
  }

  unsigned long long checks() const { return m_checks; }
  unsigned long long refused() const { return m_refused; }
  unsigned long long builds() const { return m_builds; }

 private:
  bool layerIsSafe(size_t sweepBytes) const {
    const int layerSize = align4((int)sizeof(dtTileCacheLayer));
    const int headerSize = align4((int)sizeof(dtTileCacheLayerHeader));
    if (m_layerSize < (size_t)(layerSize + headerSize)) return false;
    const dtTileCacheLayer* layer = (const dtTileCacheLayer*)m_layer;
    const dtTileCacheLayerHeader* header = (const dtTileCacheLayerHeader*)(m_layer + layerSize);
    const int w = header->width;
    const int h = header->height;
    unsigned char* grids = m_layer + layerSize + headerSize;
    // The layout dtDecompressTileCacheLayer makes; anything else and we refuse (fail closed).
    if (m_layerSize != (size_t)(layerSize + headerSize + w * h * 4)) return false;
    if (layer->header != header || layer->heights != grids || layer->areas != grids + w * h)
      return false;
    if (sweepBytes != (size_t)w * 4) return false;
    try {
      return regionNeighboursFit(w, h, layer->heights, layer->areas, m_climb);
    } catch (...) {
      return false;  // out of memory for the check: refuse, never throw into Detour
    }
  }

  int m_climb;
  int m_count = 0;
  unsigned char* m_layer = 0;
  size_t m_layerSize = 0;
  unsigned long long m_checks = 0;
  unsigned long long m_refused = 0;
  unsigned long long m_builds = 0;
};

}  // namespace

extern "C" {

void* navkit_tc_compressor_new(navkit_lz4_max_fn max_fn, navkit_lz4_fn compress_fn,
                               navkit_lz4_fn decompress_fn) {
  if (!max_fn || !compress_fn || !decompress_fn) return 0;
  return new (std::nothrow) NavkitCompressor(max_fn, compress_fn, decompress_fn);
}

void navkit_tc_compressor_free(void* c) { delete static_cast<NavkitCompressor*>(c); }

dtTileCacheCompressor* navkit_tc_compressor_base(void* c) {
  return static_cast<dtTileCacheCompressor*>(static_cast<NavkitCompressor*>(c));
}

// Calls through the virtual interface, as Detour does.
int navkit_tc_compressor_max_size(dtTileCacheCompressor* c, int n) {
  return c->maxCompressedSize(n);
}

unsigned int navkit_tc_compressor_compress(dtTileCacheCompressor* c, const unsigned char* in,
                                           int n, unsigned char* out, int cap, int* outSize) {
  return c->compress(in, n, out, cap, outSize);
}

unsigned int navkit_tc_compressor_decompress(dtTileCacheCompressor* c, const unsigned char* in,
                                             int n, unsigned char* out, int cap, int* outSize) {
  return c->decompress(in, n, out, cap, outSize);
}

void* navkit_tc_meshproc_new(const unsigned short* flagTable) {
  return new (std::nothrow) NavkitMeshProcess(flagTable);
}

void navkit_tc_meshproc_free(void* p) { delete static_cast<NavkitMeshProcess*>(p); }

dtTileCacheMeshProcess* navkit_tc_meshproc_base(void* p) {
  return static_cast<dtTileCacheMeshProcess*>(static_cast<NavkitMeshProcess*>(p));
}

int navkit_tc_meshproc_set_offmesh(void* p, const float* verts, const float* rads,
                                   const unsigned char* dirs, const unsigned char* areas,
                                   const unsigned short* flags, const unsigned int* ids, int n) {
  if (n < 0 || (n > 0 && (!verts || !rads || !dirs || !areas || !flags || !ids))) return 0;
  try {
    static_cast<NavkitMeshProcess*>(p)->setOffMesh(verts, rads, dirs, areas, flags, ids, n);
  } catch (...) {
    return 0;
  }
  return 1;
}

void* navkit_tc_alloc_new(float walkableClimb, float ch) {
  return new (std::nothrow) NavkitTileCacheAlloc(walkableClimb, ch);
}

void navkit_tc_alloc_free(void* a) { delete static_cast<NavkitTileCacheAlloc*>(a); }

dtTileCacheAlloc* navkit_tc_alloc_base(void* a) {
  return static_cast<dtTileCacheAlloc*>(static_cast<NavkitTileCacheAlloc*>(a));
}

void navkit_tc_alloc_stats(const void* a, unsigned long long* checks, unsigned long long* refused,
                          unsigned long long* builds) {
  const NavkitTileCacheAlloc* al = static_cast<const NavkitTileCacheAlloc*>(a);
  *checks = al->checks();
  *refused = al->refused();
  *builds = al->builds();
}

// Virtual calls for navkit's own tile build (src/ffi/tilecache_build.rs), which does what
// dtTileCache::buildNavMeshTile does with the cache's allocator and mesh process.
void navkit_tc_alloc_reset(dtTileCacheAlloc* a) { a->reset(); }

void navkit_tc_meshproc_process(dtTileCacheMeshProcess* p, dtNavMeshCreateParams* params,
                                unsigned char* areas, unsigned short* flags) {
  p->process(params, areas, flags);
}

// The region-neighbour check on its own, for tests and for validating loaded layers.
int navkit_tc_layer_regions_fit(int w, int h, const unsigned char* heights,
                                const unsigned char* areas, int climb) {
  if (w < 0 || h < 0 || w > 255 || h > 255 || (w * h > 0 && (!heights || !areas))) return 0;
  try {
    return regionNeighboursFit(w, h, heights, areas, climb) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
