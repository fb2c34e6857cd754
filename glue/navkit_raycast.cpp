// navkit's own raycast over a Detour navmesh: the walk of dtNavMeshQuery::raycast (the version
// with dtRaycastHit), written for navkit on the public dtNavMesh API and DetourCommon, with two
// guards Detour 1.0.3 lacks. Compiled by navkit's build.rs. Everything here is navkit's own code.
//
// Detour's walk stores each polygon it crosses while its path buffer has room, but when the
// buffer is full it only flags DT_BUFFER_TOO_SMALL and walks on; on data whose links make the
// walk go round in a cycle (upstream issue #436: overlapping polygons linked across the edge the
// ray leaves by) it never returns. This walk
// - stops as soon as a polygon does not fit in the path buffer, returning what it has (t, path
//   and cost up to the last stored polygon, no hit normal) with DT_BUFFER_TOO_SMALL, as upstream
//   later did (pull request #753);
// - and stops after max_steps polygons in any case (DT_SUCCESS | DT_PARTIAL_RESULT |
//   DT_BUFFER_TOO_SMALL), so it ends on any data also when no path is recorded (maxPath 0:
//   then, as Detour, it walks on to the end of the ray, flagging DT_BUFFER_TOO_SMALL).
// On a walk that ends before either guard, every output (t, hit normal, hit edge, path, path
// cost, status) is computed by the same float operations in the same order as Detour's, so the
// results are bit-identical (tests/queries.rs compares them on thousands of rays).

#include "DetourCommon.h"
#include "DetourNavMesh.h"
#include "DetourNavMeshQuery.h"
#include "DetourStatus.h"

#include <float.h>

namespace {

// dtQueryFilter's passFilter and getCost are inline in DetourNavMeshQuery.cpp, out of reach
// here; these compute the same (the default, non-virtual filter) from its public getters. The
// default cost does not depend on the previous or next polygon, so the walk does not track
// them (prevRef is only checked, as Detour checks it).
bool passes(const dtQueryFilter* filter, const dtPoly* poly) {
    return (poly->flags & filter->getIncludeFlags()) != 0 &&
           (poly->flags & filter->getExcludeFlags()) == 0;
}

float costAcross(const dtQueryFilter* filter, const float* pa, const float* pb, const dtPoly* poly) {
    return dtVdist(pa, pb) * filter->getAreaCost(poly->getArea());
}

// Is the crossing at parameter t of the segment start -> end inside the part of the tile-border
// edge (left, right) that the portal link covers (link->bmin..bmax, in 1/255ths of the edge)?
// side 0/4 borders run along z, side 2/6 along x.
bool insidePortal(const dtLink* link, const float* left, const float* right,
                  const float* start, const float* end, float t) {
    int axis;
    if (link->side == 0 || link->side == 4)
        axis = 2;
    else if (link->side == 2 || link->side == 6)
        axis = 0;
    else
        return false;
    const float s = 1.0f / 255.0f;
    float lo = left[axis] + (right[axis] - left[axis]) * (link->bmin * s);
    float hi = left[axis] + (right[axis] - left[axis]) * (link->bmax * s);
    if (lo > hi) dtSwap(lo, hi);
    const float at = start[axis] + (end[axis] - start[axis]) * t;
    return at >= lo && at <= hi;
}

// The ground polygon the ray continues into across edge `edge` of `poly`, or 0 (a wall for this
// filter). Fills next tile and poly when found.
dtPolyRef crossEdge(const dtNavMesh* nav, const dtMeshTile* tile, const dtPoly* poly, int edge,
                    const dtQueryFilter* filter, const float* start, const float* end, float t,
                    const dtMeshTile** nextTile, const dtPoly** nextPoly) {
    for (unsigned int i = poly->firstLink; i != DT_NULL_LINK; i = tile->links[i].next) {
        const dtLink* link = &tile->links[i];
        if ((int)link->edge != edge) continue;
        const dtMeshTile* nt = 0;
        const dtPoly* np = 0;
        nav->getTileAndPolyByRefUnsafe(link->ref, &nt, &np);
        if (np->getType() == DT_POLYTYPE_OFFMESH_CONNECTION) continue;
        if (!passes(filter, np)) continue;
        bool take;
        if (link->side == 0xff || (link->bmin == 0 && link->bmax == 255)) {
            // An internal link, or a tile-border link over the whole edge.
            take = true;
        } else {
            const float* left = &tile->verts[poly->verts[link->edge] * 3];
            const float* right = &tile->verts[poly->verts[(link->edge + 1) % poly->vertCount] * 3];
            take = insidePortal(link, left, right, start, end, t);
        }
        if (take) {
            *nextTile = nt;
            *nextPoly = np;
            return link->ref;
        }
    }
    return 0;
}

}  // namespace

extern "C" {

// sizeof(dtPolyRef) as this glue is compiled, for Rust to check against its own.
int navkit_poly_ref_size() { return (int)sizeof(dtPolyRef); }

// The guarded raycast described above, over the navmesh `query` is attached to. `hit` must have
// `path` pointing to `maxPath` writable refs (or maxPath 0: no path recorded). Arguments are checked as Detour
// checks them (valid refs, finite points); max_steps < 1 is taken as 1.
dtStatus navkit_raycast(const dtNavMeshQuery* query, dtPolyRef startRef, const float* startPos,
                        const float* endPos, const dtQueryFilter* filter, unsigned int options,
                        dtRaycastHit* hit, dtPolyRef prevRef, int maxSteps) {
    if (!query || !hit) return DT_FAILURE | DT_INVALID_PARAM;
    const dtNavMesh* nav = query->getAttachedNavMesh();
    hit->t = 0;
    hit->pathCount = 0;
    hit->pathCost = 0;
    if (!nav || !nav->isValidPolyRef(startRef) || !startPos || !dtVisfinite(startPos) ||
        !endPos || !dtVisfinite(endPos) || !filter ||
        (prevRef && !nav->isValidPolyRef(prevRef)) || (hit->maxPath > 0 && !hit->path))
        return DT_FAILURE | DT_INVALID_PARAM;
    if (maxSteps < 1) maxSteps = 1;

    float dir[3];
    float curPos[3];
    float lastPos[3];
    float verts[DT_VERTS_PER_POLYGON * 3 + 3];
    dtVcopy(curPos, startPos);
    dtVsub(dir, endPos, startPos);
    dtVset(hit->hitNormal, 0, 0, 0);

    dtStatus status = DT_SUCCESS;
    int stored = 0;

    const dtMeshTile* tile = 0;
    const dtPoly* poly = 0;
    nav->getTileAndPolyByRefUnsafe(startRef, &tile, &poly);
    dtPolyRef curRef = startRef;

    for (int step = 0; curRef; ++step) {
        if (step == maxSteps) {
            // The hard cap: only a walk that goes round in circles gets here with a path
            // buffer as large as the cap.
            hit->pathCount = stored;
            return status | DT_PARTIAL_RESULT | DT_BUFFER_TOO_SMALL;
        }
        const int nv = (int)poly->vertCount;
        for (int i = 0; i < nv; ++i) dtVcopy(&verts[i * 3], &tile->verts[poly->verts[i] * 3]);

        float tmin, tmax;
        int segMin, segMax;
        if (!dtIntersectSegmentPoly2D(startPos, endPos, verts, nv, tmin, tmax, segMin, segMax)) {
            // The ray misses this polygon (numerically): keep the t reached so far.
            hit->pathCount = stored;
            return status;
        }
        if (hit->maxPath > 0 && stored == hit->maxPath) {
            // No room for this polygon: stop here, with t and cost up to the last stored one.
            hit->pathCount = stored;
            return status | DT_BUFFER_TOO_SMALL;
        }
        hit->hitEdgeIndex = segMax;
        if (tmax > hit->t) hit->t = tmax;
        if (hit->maxPath > 0)
            hit->path[stored++] = curRef;
        else
            status |= DT_BUFFER_TOO_SMALL;  // No path wanted: as Detour, walk on (to the cap).

        if (segMax == -1) {
            // The ray ends inside this polygon.
            hit->t = FLT_MAX;
            hit->pathCount = stored;
            if (options & DT_RAYCAST_USE_COSTS)
                hit->pathCost += costAcross(filter, curPos, endPos, poly);
            return status;
        }

        const dtMeshTile* nextTile = tile;
        const dtPoly* nextPoly = poly;
        const dtPolyRef nextRef = crossEdge(nav, tile, poly, segMax, filter, startPos, endPos,
                                            tmax, &nextTile, &nextPoly);

        if (options & DT_RAYCAST_USE_COSTS) {
            // Cost of the stretch across this polygon: to where the ray leaves it (furthest t so
            // far), its height taken on the crossed edge (the walk itself is 2D).
            dtVcopy(lastPos, curPos);
            dtVmad(curPos, startPos, dir, hit->t);
            const float* e1 = &verts[segMax * 3];
            const float* e2 = &verts[((segMax + 1) % nv) * 3];
            float eDir[3];
            float diff[3];
            dtVsub(eDir, e2, e1);
            dtVsub(diff, curPos, e1);
            const float s = dtSqr(eDir[0]) > dtSqr(eDir[2]) ? diff[0] / eDir[0] : diff[2] / eDir[2];
            curPos[1] = e1[1] + eDir[1] * s;
            hit->pathCost += costAcross(filter, lastPos, curPos, poly);
        }

        if (!nextRef) {
            // A wall: its normal is the crossed edge (dx, dz) turned to (dz, -dx), in xz,
            // normalized, as Detour computes it.
            const float* va = &verts[segMax * 3];
            const float* vb = &verts[(segMax + 1 < nv ? segMax + 1 : 0) * 3];
            hit->hitNormal[0] = vb[2] - va[2];
            hit->hitNormal[1] = 0;
            hit->hitNormal[2] = -(vb[0] - va[0]);
            dtVnormalize(hit->hitNormal);
            hit->pathCount = stored;
            return status;
        }

        curRef = nextRef;
        tile = nextTile;
        poly = nextPoly;
    }
    hit->pathCount = stored;
    return status;
}

}  // extern "C"
