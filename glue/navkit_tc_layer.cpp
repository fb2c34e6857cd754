// navkit's own C++ glue running Detour's tile cache build steps on a decoded layer's grids: the
// region partition (dtBuildTileCacheRegions), and then contours (dtBuildTileCacheContours), for
// drawing them as RecastDemo's Temp Obstacles sample does (duDebugDrawTileCacheLayerRegions,
// ...Contours, ...PolyMesh). The poly mesh is navkit's own (src/ffi/tile_poly_mesh/), as in
// the tile builds: Detour's dtBuildTileCachePolyMesh is not memory-safe on every layer.
// Compiled by navkit's build.rs. Everything here is navkit's own code.
//
// The caller (src/ffi/tile_layer.rs) first checks that the partition keeps every region within
// Detour's 16 neighbour slots (upstream issue #452): dtBuildTileCacheRegions writes past its
// neighbour lists otherwise.

#include <string.h>

#include <new>
#include <vector>

#include "DetourAlloc.h"
#include "DetourStatus.h"
#include "DetourTileCacheBuilder.h"

extern "C" {

// A w x h layer (1..255 each way) over the caller's grids, as Detour's layer functions take
// it: a zeroed header with the size and the whole layer as its used area.
static void wrap_layer(int w, int h, const unsigned char* heights, const unsigned char* areas,
                       const unsigned char* cons, unsigned char* regs,
                       dtTileCacheLayerHeader* header, dtTileCacheLayer* layer) {
    memset(header, 0, sizeof(*header));
    header->width = (unsigned char)w;
    header->height = (unsigned char)h;
    header->maxx = (unsigned char)(w - 1);
    header->maxy = (unsigned char)(h - 1);
    memset(layer, 0, sizeof(*layer));
    layer->header = header;
    // Detour's struct has non-const pointers; its region, contour and mesh steps write only
    // `regs`.
    layer->heights = const_cast<unsigned char*>(heights);
    layer->areas = const_cast<unsigned char*>(areas);
    layer->cons = const_cast<unsigned char*>(cons);
    layer->regs = regs;
}

// Regions of a w x h layer (1..255 each way) into `regs` (w * h bytes, 0xff: no region) and
// their number into `regCount`; the grids are only read. Returns Detour's status, or
// DT_FAILURE | DT_INVALID_PARAM for bad arguments.
dtStatus navkit_tc_layer_regions(int w, int h, const unsigned char* heights,
                                 const unsigned char* areas, const unsigned char* cons,
                                 int walkableClimb, unsigned char* regs, int* regCount) {
    if (w <= 0 || h <= 0 || w > 255 || h > 255 || !heights || !areas || !cons || !regs ||
        !regCount)
        return DT_FAILURE | DT_INVALID_PARAM;
    dtTileCacheLayerHeader header;
    dtTileCacheLayer layer;
    wrap_layer(w, h, heights, areas, cons, regs, &header, &layer);
    dtTileCacheAlloc alloc;
    dtStatus st = dtBuildTileCacheRegions(&alloc, layer, walkableClimb);
    *regCount = layer.regCount;
    return st;
}

// The contours of one layer, copied out of Detour's structures.
struct NavkitLayerMesh {
    std::vector<int> contourStarts;  // first vertex of each contour, plus the end
    std::vector<unsigned char> contourVerts;  // 4 bytes per vertex
    std::vector<unsigned char> contourRegs;
    std::vector<unsigned char> contourAreas;
};

namespace {

// Owns what the build allocates, freed on every path out.
struct LayerBuild {
    explicit LayerBuild(dtTileCacheAlloc* a) : alloc(a), lcset(0) {}
    ~LayerBuild() { dtFreeTileCacheContourSet(alloc, lcset); }
    dtTileCacheAlloc* alloc;
    dtTileCacheContourSet* lcset;
};

}  // namespace

// Regions and contours of a w x h layer (1..255 each way), as dtTileCache builds a tile
// before it marks obstacles in (none are marked here, as RecastDemo's views). The grids
// are only read. Returns the result (free it with navkit_tc_layer_mesh_free) or null, with
// Detour's status in `status` (DT_FAILURE | DT_INVALID_PARAM for bad arguments,
// DT_FAILURE | DT_OUT_OF_MEMORY if allocation failed).
NavkitLayerMesh* navkit_tc_layer_mesh_new(int w, int h, const unsigned char* heights,
                                          const unsigned char* areas, const unsigned char* cons,
                                          int walkableClimb, float maxError, dtStatus* status) {
    if (!status) return 0;
    if (w <= 0 || h <= 0 || w > 255 || h > 255 || !heights || !areas || !cons) {
        *status = DT_FAILURE | DT_INVALID_PARAM;
        return 0;
    }
    try {
        std::vector<unsigned char> regs((size_t)w * (size_t)h, 0xff);
        dtTileCacheLayerHeader header;
        dtTileCacheLayer layer;
        wrap_layer(w, h, heights, areas, cons, regs.data(), &header, &layer);
        dtTileCacheAlloc alloc;
        dtStatus st = dtBuildTileCacheRegions(&alloc, layer, walkableClimb);
        if (dtStatusFailed(st)) {
            *status = st;
            return 0;
        }
        LayerBuild bc(&alloc);
        bc.lcset = dtAllocTileCacheContourSet(&alloc);
        if (!bc.lcset) {
            *status = DT_FAILURE | DT_OUT_OF_MEMORY;
            return 0;
        }
        st = dtBuildTileCacheContours(&alloc, layer, walkableClimb, maxError, *bc.lcset);
        if (dtStatusFailed(st)) {
            *status = st;
            return 0;
        }
        NavkitLayerMesh* out = new NavkitLayerMesh();
        const dtTileCacheContourSet& cs = *bc.lcset;
        for (int i = 0; i < cs.nconts; ++i) {
            const dtTileCacheContour& c = cs.conts[i];
            out->contourStarts.push_back((int)(out->contourVerts.size() / 4));
            if (c.nverts > 0 && c.verts)
                out->contourVerts.insert(out->contourVerts.end(), c.verts, c.verts + c.nverts * 4);
            out->contourRegs.push_back(c.reg);
            out->contourAreas.push_back(c.area);
        }
        out->contourStarts.push_back((int)(out->contourVerts.size() / 4));
        *status = st;
        return out;
    } catch (...) {
        *status = DT_FAILURE | DT_OUT_OF_MEMORY;
        return 0;
    }
}

void navkit_tc_layer_mesh_free(NavkitLayerMesh* m) { delete m; }

// The contours: their count, and for contour i its vertices (4 bytes each: x, height, z,
// flags), region and area. Returns 0 for an index out of range.
int navkit_tc_layer_mesh_contour_count(const NavkitLayerMesh* m) {
    return m ? (int)m->contourRegs.size() : 0;
}

int navkit_tc_layer_mesh_contour(const NavkitLayerMesh* m, int i, const unsigned char** verts,
                                 int* nverts, unsigned char* reg, unsigned char* area) {
    if (!m || i < 0 || i >= (int)m->contourRegs.size() || !verts || !nverts || !reg || !area)
        return 0;
    int a = m->contourStarts[i], b = m->contourStarts[i + 1];
    *verts = m->contourVerts.data() + (size_t)a * 4;
    *nverts = b - a;
    *reg = m->contourRegs[i];
    *area = m->contourAreas[i];
    return 1;
}

}  // extern "C"
