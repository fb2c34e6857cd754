// navkit's own C++ glue reading a dtNavMeshQuery's search node pool (what RecastDemo's
// duDebugDrawNavMeshNodes draws): dtNodePool is not in recastnavigation-sys's bindings, so the
// nodes are copied out here into a plain struct. Compiled by navkit's build.rs. Everything here
// is navkit's own code.

#include "DetourNavMeshQuery.h"
#include "DetourNode.h"

extern "C" {

// One search node, as copied out. `parent` is the 1-based index of the parent node in the
// pool (0: none), as dtNode::pidx.
struct navkit_search_node {
    float pos[3];
    float cost;
    float total;
    unsigned int parent;
    unsigned int state;
    unsigned int flags;
    dtPolyRef id;
};

// sizeof(navkit_search_node), checked by src/ffi against its own layout.
int navkit_search_node_size() { return (int)sizeof(navkit_search_node); }

// Nodes in use in the query's main node pool (the one findPath, the sliced search and the
// Dijkstra searches use), or -1 if the query has none (not initialised). Never more than the
// pool's capacity.
int navkit_query_node_count(const dtNavMeshQuery* query) {
    if (!query) return -1;
    const dtNodePool* pool = query->getNodePool();
    if (!pool) return -1;
    int n = pool->getNodeCount();
    if (n < 0) return 0;
    if (n > pool->getMaxNodes()) n = pool->getMaxNodes();
    return n;
}

// Copies the first min(count, max) nodes of the main node pool, in pool order, into `out`
// (which holds `max`); returns how many were copied, or -1 without a pool.
int navkit_query_nodes(const dtNavMeshQuery* query, navkit_search_node* out, int max) {
    int n = navkit_query_node_count(query);
    if (n < 0) return -1;
    if (!out || max <= 0) return 0;
    if (n > max) n = max;
    const dtNodePool* pool = query->getNodePool();
    for (int i = 0; i < n; ++i) {
        const dtNode* node = pool->getNodeAtIdx((unsigned int)i + 1);
        navkit_search_node& o = out[i];
        o.pos[0] = node->pos[0];
        o.pos[1] = node->pos[1];
        o.pos[2] = node->pos[2];
        o.cost = node->cost;
        o.total = node->total;
        o.parent = node->pidx;
        o.state = node->state;
        o.flags = node->flags;
        o.id = node->id;
    }
    return n;
}

}  // extern "C"
