// Every kernel, copy and memset of a process with its GPU start and end (ns, CUPTI's one
// clock for all GPUs), one line each into $CUPTI_TRACE_OUT (default /tmp/cupti.txt), for
// seeing where a search goes without WARPGRAPH_TRACE's events between the kernels.
// Preloaded (LD_PRELOAD) into the CLI; built on the GPU machine by tools/cupti/run against
// its CUDA's cupti.h, KREC, MREC and SREC naming that header's latest
// kernel, memcpy and memset records (CUDA 13.0: CUpti_ActivityKernel10, CUpti_ActivityMemcpy6,
// CUpti_ActivityMemset4). Lines: "K device stream start end blocks name",
// "C device stream start end bytes kind" (kind 1: to the GPU, 2: from it), "S device stream
// start end bytes". CUPTI slows each launch on the host, not the kernels.
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#define BUF (16u << 20)
static FILE *out;
static void CUPTIAPI req(uint8_t **buf, size_t *size, size_t *maxrec) {
    *buf = aligned_alloc(8, BUF);
    *size = BUF;
    *maxrec = 0;
}
static void CUPTIAPI done(CUcontext ctx, uint32_t sid, uint8_t *buf, size_t size, size_t valid) {
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            KREC *k = (KREC *)r;
            fprintf(out, "K %u %u %llu %llu %u %s\n", k->deviceId, k->streamId,
                    (unsigned long long)k->start, (unsigned long long)k->end,
                    k->gridX * k->gridY * k->gridZ, k->name);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            MREC *m = (MREC *)r;
            fprintf(out, "C %u %u %llu %llu %llu %u\n", m->deviceId, m->streamId,
                    (unsigned long long)m->start, (unsigned long long)m->end,
                    (unsigned long long)m->bytes, (unsigned)m->copyKind);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            SREC *m = (SREC *)r;
            fprintf(out, "S %u %u %llu %llu %llu\n", m->deviceId, m->streamId,
                    (unsigned long long)m->start, (unsigned long long)m->end,
                    (unsigned long long)m->bytes);
        }
    }
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, sid, &dropped);
    if (dropped) fprintf(out, "DROPPED %zu\n", dropped);
    free(buf);
}
__attribute__((constructor)) static void init(void) {
    const char *p = getenv("CUPTI_TRACE_OUT");
    out = fopen(p ? p : "/tmp/cupti.txt", "w");
    cuptiActivityRegisterCallbacks(req, done);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
}
__attribute__((destructor)) static void fini(void) {
    cuptiActivityFlushAll(1);
    fflush(out);
}
