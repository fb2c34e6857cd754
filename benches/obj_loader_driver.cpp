// The C++ side of benches/obj_loader.rs: loads one OBJ file with RecastDemo's rcMeshLoaderObj
// (MeshLoaderObj.cpp, compiled by the benchmark from the recastnavigation-sys sources in place)
// and prints, on one line, the load time, the resident memory before the load and the peak
// after it (VmRSS and VmHWM of /proc/self/status, in KiB), the vertex and triangle counts and
// an FNV-1a hash of the vertex floats and triangle indices (the same hash the Rust side prints).
#include "MeshLoaderObj.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static long status_kib(const char* key)
{
	FILE* f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long v = -1;
	const size_t n = strlen(key);
	while (fgets(line, sizeof(line), f))
	{
		if (strncmp(line, key, n) == 0)
		{
			v = atol(line + n);
			break;
		}
	}
	fclose(f);
	return v;
}

static uint64_t fnv1a(uint64_t h, const void* data, size_t len)
{
	const unsigned char* p = static_cast<const unsigned char*>(data);
	for (size_t i = 0; i < len; ++i)
	{
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int main(int argc, char** argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: %s FILE.obj\n", argv[0]);
		return 2;
	}
	const long before = status_kib("VmRSS:");
	rcMeshLoaderObj* mesh = new rcMeshLoaderObj;
	const auto t0 = std::chrono::steady_clock::now();
	const bool ok = mesh->load(argv[1]);
	const auto t1 = std::chrono::steady_clock::now();
	if (!ok)
	{
		fprintf(stderr, "rcMeshLoaderObj::load failed on %s\n", argv[1]);
		return 1;
	}
	const long hwm = status_kib("VmHWM:");
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv1a(h, mesh->getVerts(), sizeof(float) * 3 * (size_t)mesh->getVertCount());
	h = fnv1a(h, mesh->getTris(), sizeof(int) * 3 * (size_t)mesh->getTriCount());
	const double secs = std::chrono::duration<double>(t1 - t0).count();
	printf("time_s=%.6f rss_before_kib=%ld hwm_kib=%ld verts=%d tris=%d hash=%016llx\n", secs,
		before, hwm, mesh->getVertCount(), mesh->getTriCount(), (unsigned long long)h);
	delete mesh;
	return 0;
}
