// navkit's own C++ glue running Detour's tile cache region partition (dtBuildTileCacheRegions)
// on a decoded layer's grids, for drawing the layer's regions as RecastDemo's
// duDebugDrawTileCacheLayerRegions does. Compiled by navkit's build.rs. Everything here is
// navkit's own code.
//
// The caller (src/ffi/tile_layer.rs) first checks that the partition keeps every region within
// Detour's 16 neighbour slots (upstream issue #452): dtBuildTileCacheRegions writes past its
// neighbour lists otherwise.

#include <string.h>

#include "DetourAlloc.h"
#include "DetourStatus.h"
#include "DetourTileCacheBuilder.h"

extern "C" {

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
    memset(&header, 0, sizeof(header));
    header.width = (unsigned char)w;
    header.height = (unsigned char)h;
    header.maxx = (unsigned char)(w - 1);
    header.maxy = (unsigned char)(h - 1);
    dtTileCacheLayer layer;
    memset(&layer, 0, sizeof(layer));
    layer.header = &header;
    // Detour's struct has non-const pointers; dtBuildTileCacheRegions writes only `regs`.
    layer.heights = const_cast<unsigned char*>(heights);
    layer.areas = const_cast<unsigned char*>(areas);
    layer.cons = const_cast<unsigned char*>(cons);
    layer.regs = regs;
    dtTileCacheAlloc alloc;
    dtStatus st = dtBuildTileCacheRegions(&alloc, layer, walkableClimb);
    *regCount = layer.regCount;
    return st;
}

}  // extern "C"
