// navkit's own C++ glue for dtNavMeshQuery::queryPolygons with a collector: a dtPolyQuery whose
// batches go to a Rust callback. Compiled by navkit's build.rs. Everything here is navkit's own
// code.
//
// The callback returns nonzero to go on and 0 to stop (it panicked, and the panic is raised
// again in Rust once queryPolygons returns); Detour has no way to stop a query early, so after
// a 0 the remaining batches are skipped here.

#include "DetourNavMesh.h"
#include "DetourNavMeshQuery.h"
#include "DetourStatus.h"

extern "C" {
typedef int (*navkit_poly_batch_fn)(void* user, const dtPolyRef* refs, int count);
}

namespace {

class NavkitPolyCollector : public dtPolyQuery {
public:
    NavkitPolyCollector(navkit_poly_batch_fn fn, void* user) : m_fn(fn), m_user(user), m_stop(false) {}
    virtual ~NavkitPolyCollector() {}
    virtual void process(const dtMeshTile* /*tile*/, dtPoly** /*polys*/, dtPolyRef* refs, int count) {
        if (m_stop || count <= 0) return;
        if (!m_fn(m_user, refs, count)) m_stop = true;
    }

private:
    navkit_poly_batch_fn m_fn;
    void* m_user;
    bool m_stop;
};

}  // namespace

extern "C" {

// queryPolygons(center, halfExtents, filter, collector) calling `fn(user, refs, count)` for each
// batch of polygons (at most 32 per batch, one tile at a time).
dtStatus navkit_query_polygons(const dtNavMeshQuery* query, const float* center,
                               const float* halfExtents, const dtQueryFilter* filter,
                               navkit_poly_batch_fn fn, void* user) {
    if (!query || !fn) return DT_FAILURE | DT_INVALID_PARAM;
    NavkitPolyCollector collector(fn, user);
    return query->queryPolygons(center, halfExtents, filter, &collector);
}

}  // extern "C"
