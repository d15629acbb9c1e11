#include "csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const csv_header =
    "timestamp,git_commit,device,cc,driver,cuda_runtime,cublas_version,seed,l2_flush,"
    "op,variant,library,math,m,n,k,elems,samples,time_ms_median,time_ms_min,time_ms_q1,"
    "time_ms_q3,spread_pct,tflops,gbps,gkeys_per_s,ref_library,pct_of_ref_library,"
    "best_library,pct_of_best_library,pct_of_peak,rel_err,tolerance,status,flops,bytes,"
    "peak_fp32_tflops,peak_mem_gbps,kernel,kernel_note,source,sm_clock_mhz,sm_clock_min_mhz,"
    "mem_clock_mhz,temp_c,power_w,throttle,hostname,rank,device_index,device_uuid,pci_bus_id,dist,interleave,timing,message,"
    "note,peak_math,peak_tflops,shape,"
    "intensity,bound,dram_read_bytes,dram_write_bytes,l2_bytes,flops_measured,occupancy_pct,"
    "sm_throughput_pct,intensity_measured,metrics_note,hint";

void csv_write_field(FILE *f, const char *s)
{
    if (!s) return;
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void csv_format_number(char *buf, size_t len, double v)
{
    if (!(v >= 0)) buf[0] = '\0'; /* negative or NaN: not applicable */
    else if (v < 9007199254740992.0 && v == (double)(long long)v)
        snprintf(buf, len, "%lld", (long long)v); /* counts (flops, bytes) exactly, not 1.71798692e+10 */
    else snprintf(buf, len, "%.9g", v);
}

static void csv_dirname(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, len, ".");
    else if (slash == path) snprintf(dir, len, "/");
    else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int csv_check_target(const char *path, char *err, size_t err_len)
{
    char dir[4096];
    struct stat st;
    if (path[0] == '\0') {
        snprintf(err, err_len, "--csv: empty path");
        return -1;
    }
    if (strlen(path) >= 4000) {
        snprintf(err, err_len, "--csv: path too long");
        return -1;
    }
    csv_dirname(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "--csv '%s': directory '%s' does not exist", path, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, err_len, "--csv '%s': directory '%s' is not writable", path, dir);
        return -1;
    }
    if (stat(path, &st) == 0) {
        FILE *f;
        char line[64] = "";
        static const char ours[] = "timestamp,git_commit,device,cc,";
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, err_len, "--csv '%s' is a directory (expected a file path)", path);
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, err_len, "--csv '%s' is not a regular file", path);
            return -1;
        }
        f = fopen(path, "r");
        if (!f) {
            snprintf(err, err_len, "--csv '%s' exists and cannot be read: %s", path, strerror(errno));
            return -1;
        }
        /* an empty file is fine; anything else must start with our header */
        if (st.st_size > 0 &&
            (!fgets(line, sizeof line, f) || strncmp(line, ours, sizeof ours - 1) != 0)) {
            fclose(f);
            snprintf(err, err_len,
                     "--csv '%s' exists and is not a compare CSV (refusing to overwrite it)", path);
            return -1;
        }
        fclose(f);
    }
    return 0;
}

int csv_open(csv_writer *w, const char *path, char *err, size_t err_len)
{
    int fd;
    memset(w, 0, sizeof *w);
    if (csv_check_target(path, err, err_len)) return -1;
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.XXXXXX", path);
    fd = mkstemp(w->tmp);
    if (fd < 0) {
        snprintf(err, err_len, "--csv '%s': cannot create a temporary file: %s", path, strerror(errno));
        return -1;
    }
    fchmod(fd, 0644);
    w->f = fdopen(fd, "w");
    if (!w->f) {
        close(fd);
        unlink(w->tmp);
        snprintf(err, err_len, "--csv '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(w->f, "%s\n", csv_header);
    fflush(w->f);
    return 0;
}

static void csv_num(FILE *f, double v)
{
    char b[64];
    csv_format_number(b, sizeof b, v);
    fputs(b, f);
}

static void csv_int(FILE *f, long long v)
{
    if (v > 0) fprintf(f, "%lld", v);
}

int csv_write_row(csv_writer *w, const run_info *info, const result_row *r)
{
    FILE *f = w->f;
    const device_info *d = &info->dev;
    int timed = r->status == STATUS_OK && r->time_ms.count > 0;
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    csv_write_field(f, info->timestamp); fputc(',', f);
    csv_write_field(f, info->git_commit); fputc(',', f);
    csv_write_field(f, d->name); fputc(',', f);
    fputs(cc, f); fputc(',', f);
    fprintf(f, "%d,%d,%d,%llu,%d,", d->driver_version, d->runtime_version, d->cublas_version,
            info->seed, info->l2_flush);
    csv_write_field(f, r->op); fputc(',', f);
    csv_write_field(f, r->variant); fputc(',', f);
    fprintf(f, "%d,", r->library);
    csv_write_field(f, r->math); fputc(',', f);
    csv_int(f, r->m); fputc(',', f);
    csv_int(f, r->n); fputc(',', f);
    csv_int(f, r->k); fputc(',', f);
    csv_int(f, r->elems); fputc(',', f);
    if (timed) {
        fprintf(f, "%zu,", r->time_ms.count);
        csv_num(f, r->time_ms.median); fputc(',', f);
        csv_num(f, r->time_ms.min); fputc(',', f);
        csv_num(f, r->time_ms.q1); fputc(',', f);
        csv_num(f, r->time_ms.q3); fputc(',', f);
        csv_num(f, r->time_ms.spread_pct); fputc(',', f);
        csv_num(f, r->tflops); fputc(',', f);
        csv_num(f, r->gbps); fputc(',', f);
        csv_num(f, r->gkeys); fputc(',', f);
    } else {
        fputs(",,,,,,,,,", f);
    }
    csv_write_field(f, r->library ? "" : r->ref_library); fputc(',', f);
    csv_num(f, timed ? r->pct_ref : -1); fputc(',', f);
    csv_write_field(f, r->library ? "" : r->best_library); fputc(',', f);
    csv_num(f, timed ? r->pct_best : -1); fputc(',', f);
    csv_num(f, timed ? r->pct_peak : -1); fputc(',', f);
    csv_num(f, r->rel_err); fputc(',', f);
    csv_num(f, r->rel_err >= 0 ? r->tolerance : -1); fputc(',', f);
    fputs(status_name(r->status), f); fputc(',', f);
    csv_num(f, r->flops); fputc(',', f);
    csv_num(f, r->bytes); fputc(',', f);
    csv_num(f, d->peak_fp32_tflops); fputc(',', f);
    csv_num(f, d->peak_mem_gbps); fputc(',', f);
    csv_write_field(f, r->kernel); fputc(',', f);
    csv_write_field(f, r->kernel_note); fputc(',', f);
    csv_write_field(f, r->source); fputc(',', f);
    csv_num(f, r->sm_clock_mhz); fputc(',', f);
    csv_num(f, r->sm_clock_min_mhz); fputc(',', f);
    csv_num(f, r->mem_clock_mhz); fputc(',', f);
    csv_num(f, r->temp_c); fputc(',', f);
    csv_num(f, r->power_w); fputc(',', f);
    csv_write_field(f, r->throttle); fputc(',', f);
    csv_write_field(f, info->hostname); fputc(',', f);
    if (info->rank >= 0) fprintf(f, "%d", info->rank);
    fputc(',', f);
    fprintf(f, "%d,", d->index);
    csv_write_field(f, d->uuid); fputc(',', f);
    csv_write_field(f, d->pci_bus_id); fputc(',', f);
    csv_write_field(f, r->dist); fputc(',', f);
    fprintf(f, "%d,", r->interleaved);
    csv_write_field(f, r->timing); fputc(',', f);
    csv_write_field(f, r->message); fputc(',', f);
    csv_write_field(f, r->note); fputc(',', f);
    csv_write_field(f, r->peak_math); fputc(',', f);
    csv_num(f, timed ? r->peak_tflops : -1); fputc(',', f);
    csv_write_field(f, r->shape); fputc(',', f);
    csv_num(f, r->intensity); fputc(',', f);
    csv_write_field(f, r->bound); fputc(',', f);
    csv_num(f, r->dram_read_bytes); fputc(',', f);
    csv_num(f, r->dram_write_bytes); fputc(',', f);
    csv_num(f, r->l2_bytes); fputc(',', f);
    csv_num(f, r->flops_measured); fputc(',', f);
    csv_num(f, r->occupancy_pct); fputc(',', f);
    csv_num(f, r->sm_throughput_pct); fputc(',', f);
    csv_num(f, r->intensity_measured); fputc(',', f);
    csv_write_field(f, r->metrics_note); fputc(',', f);
    csv_write_field(f, r->hint);
    fputc('\n', f);
    w->rows++;
    if (fflush(f) != 0 || ferror(f)) return -1;
    return 0;
}

int csv_commit(csv_writer *w, char *err, size_t err_len)
{
    if (!w->f) return -1;
    if (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0 || ferror(w->f)) {
        snprintf(err, err_len, "--csv '%s': write failed: %s", w->path, strerror(errno));
        fclose(w->f);
        w->f = NULL;
        unlink(w->tmp);
        return -1;
    }
    fclose(w->f);
    w->f = NULL;
    if (rename(w->tmp, w->path) != 0) {
        snprintf(err, err_len, "--csv '%s': rename failed: %s", w->path, strerror(errno));
        unlink(w->tmp);
        return -1;
    }
    return 0;
}

void csv_abort(csv_writer *w)
{
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
        unlink(w->tmp);
    }
}
