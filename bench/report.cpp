// Table printing and CSV output. All of gpusvd-bench's output is printed here or in main.cpp;
// the library never prints.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"

namespace bench {

namespace {

std::string num(double v, const char *fmt = "%.4g") {
    if (!std::isfinite(v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string cell(const Stat &s) {
    if (s.ok()) return s.tag.empty() ? num(s.ms) : num(s.ms) + " " + s.tag;
    return s.note.empty() ? "-" : s.note;
}

double floor_ms(const Row &r, const Ceilings &c) {
    double t = 0;
    if (c.gflops > 0 && r.flops > 0) t = std::max(t, r.flops / (c.gflops * 1e9) * 1e3);
    if (c.gbs > 0 && r.bytes > 0) t = std::max(t, r.bytes / (c.gbs * 1e9) * 1e3);
    if (c.pcie_gbs > 0 && r.pcie_bytes > 0)
        t = std::max(t, r.pcie_bytes / (c.pcie_gbs * 1e9) * 1e3);
    return t > 0 ? t : NAN;
}

double ratio(const Stat &num_, const Stat &den) {
    return num_.ok() && den.ok() && den.ms > 0 ? num_.ms / den.ms : NAN;
}

/// "goal >= 3x vs cuSOLVER: met (3.41x)", "goal <= 250 ms: NOT MET (412 ms)", "; "-joined.
std::string goal_text(const Row &r, const std::string &other) {
    std::string out;
    for (const Goal &g : r.goals) {
        std::string what, got;
        bool met = false, known = false;
        if (g.kind == Goal::MaxMs) {
            what = "<= " + num(g.value) + " ms";
            known = r.a.ok();
            met = known && r.a.ms <= g.value;
            got = num(r.a.ms, "%.3g") + " ms";
        } else {
            const Stat &den = g.kind == Goal::CusolverRatio ? r.b
                              : g.kind == Goal::HostRatio   ? r.c
                                                            : r.d;
            const double x = ratio(den, r.a);
            what = ">= " + num(g.value) + "x vs " +
                   (g.kind == Goal::CusolverRatio ? std::string("cuSOLVER")
                    : g.kind == Goal::HostRatio   ? std::string("host")
                                                  : other);
            known = std::isfinite(x);
            met = known && x >= g.value;
            got = num(x, "%.3g") + "x";
        }
        if (!out.empty()) out += "; ";
        out += "goal " + what + ": " +
               (!known ? std::string("? (no time)")
                : met  ? "met (" + got + ")"
                       : "NOT MET (" + got + ")");
    }
    return out;
}

void print(const std::string &title, const std::vector<std::string> &head,
           const std::vector<std::vector<std::string>> &cells, const std::string &foot) {
    std::vector<size_t> w(head.size(), 0);
    for (size_t j = 0; j < head.size(); ++j) w[j] = head[j].size();
    for (const auto &r : cells)
        for (size_t j = 0; j < r.size() && j < w.size(); ++j) w[j] = std::max(w[j], r[j].size());
    std::printf("\n== %s\n", title.c_str());
    auto line = [&](const std::vector<std::string> &r) {
        for (size_t j = 0; j < w.size(); ++j) {
            const std::string &s = j < r.size() ? r[j] : std::string();
            // first two columns (case, size) left-aligned, numbers right-aligned
            if (j < 2)
                std::printf("%s%-*s", j ? "  " : "", int(w[j]), s.c_str());
            else
                std::printf("  %*s", int(w[j]), s.c_str());
        }
        std::printf("\n");
    };
    line(head);
    size_t total = 0;
    for (size_t x : w) total += x + 2;
    std::printf("%s\n", std::string(total > 2 ? total - 2 : 0, '-').c_str());
    for (const auto &r : cells) line(r);
    if (!foot.empty()) std::printf("%s", foot.c_str());
    std::fflush(stdout);
}

}  // namespace

bool Report::wanted(const std::string &table, const std::string &name,
                    const std::string &size) const {
    if (opt_.filter.empty()) return true;
    const std::string key = table + " " + name + " " + size;
    return key.find(opt_.filter) != std::string::npos;
}

void Report::cpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c) {
    if (rows.empty()) return;
    const std::vector<std::string> head = {
        "case", "size",    "gpusvd ms", "LAPACKE ms", "overhead %", "runs", "GFLOP",
        "MB",   "GFLOP/s", "GB/s",      "floor ms",   "x floor",    "check"};
    std::vector<std::vector<std::string>> cells;
    for (const Row &r : rows) {
        const double t = r.a.ok() ? r.a.ms : NAN;
        const double fl = floor_ms(r, c);
        cells.push_back({r.name, r.size, cell(r.a), cell(r.b),
                         num((ratio(r.a, r.b) - 1) * 100, "%+.1f"),
                         std::to_string(r.a.runs) + "/" + std::to_string(r.b.runs),
                         num(r.flops > 0 ? r.flops / 1e9 : NAN, "%.3g"), num(r.bytes / 1e6, "%.3g"),
                         num(r.flops > 0 ? r.flops / (t * 1e6) : NAN, "%.3g"),
                         num(r.bytes / (t * 1e6), "%.3g"), num(fl), num(t / fl, "%.1f"), r.check});
        all_.push_back(r);
        goal_results_.push_back("");
        if (r.failed) failed_ = true;
    }
    print(title, head, cells, "");
}

void Report::gpu_table(const std::string &title, const std::vector<Row> &rows, const Ceilings &c,
                       const std::string &foot, const std::string &other) {
    if (rows.empty()) return;
    bool goals = false, pcie = false;
    for (const Row &r : rows) {
        goals = goals || !r.goals.empty();
        pcie = pcie || r.pcie_bytes > 0;
    }
    std::vector<std::string> head = {"case", "size", "gpusvd GPU ms", "cuSOLVER ms",
                                     "host LAPACK ms"};
    if (!other.empty()) head.push_back(other + " ms");
    for (const char *h : {"cuSOLVER/gpusvd", "host/gpusvd", "host/cuSOLVER"}) head.push_back(h);
    if (!other.empty()) head.push_back(other + "/gpusvd");
    for (const char *h : {"GFLOP", "MB"}) head.push_back(h);
    if (pcie) head.push_back("PCIe MB");
    for (const char *h : {"cuSOLVER GFLOP/s", "cuSOLVER GB/s", "floor ms"}) head.push_back(h);
    if (goals) head.push_back("goal");
    head.push_back("check");
    std::vector<std::vector<std::string>> cells;
    for (const Row &r : rows) {
        const double t = r.b.ok() ? r.b.ms : NAN;
        std::vector<std::string> x = {r.name, r.size, cell(r.a), cell(r.b), cell(r.c)};
        if (!other.empty()) x.push_back(cell(r.d));
        for (double v : {ratio(r.b, r.a), ratio(r.c, r.a), ratio(r.c, r.b)})
            x.push_back(num(v, "%.3g"));
        if (!other.empty()) x.push_back(num(ratio(r.d, r.a), "%.3g"));
        x.push_back(num(r.flops > 0 ? r.flops / 1e9 : NAN, "%.3g"));
        x.push_back(num(r.bytes / 1e6, "%.3g"));
        if (pcie) x.push_back(num(r.pcie_bytes > 0 ? r.pcie_bytes / 1e6 : NAN, "%.3g"));
        x.push_back(num(r.flops > 0 ? r.flops / (t * 1e6) : NAN, "%.3g"));
        x.push_back(num(r.bytes / (t * 1e6), "%.3g"));
        x.push_back(num(floor_ms(r, c)));
        if (goals) x.push_back(goal_text(r, other));
        x.push_back(r.check);
        cells.push_back(std::move(x));
        all_.push_back(r);
        goal_results_.push_back(goal_text(r, other));
        if (r.failed) failed_ = true;
    }
    print(title, head, cells, foot);
}

bool Report::write_csv() const {
    if (opt_.csv.empty()) return true;
    std::FILE *f = std::fopen(opt_.csv.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "gpusvd-bench: cannot write %s\n", opt_.csv.c_str());
        return false;
    }
    auto q = [](const std::string &s) {  // CSV quoting
        std::string o = "\"";
        for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        return o + "\"";
    };
    auto v = [](double x) { return std::isfinite(x) ? num(x, "%.6g") : std::string(); };
    std::fprintf(f,
                 "table,case,size,a_ms,a_runs,a_note,b_ms,b_runs,b_note,c_ms,c_runs,c_note,"
                 "flops,bytes,per,check,d_ms,d_runs,d_note,pcie_bytes,tags,goal\n");
    for (size_t i = 0; i < all_.size(); ++i) {
        const Row &r = all_[i];
        std::string tags;
        const Stat *st[] = {&r.a, &r.b, &r.c, &r.d};
        for (int j = 0; j < 4; ++j)
            if (!st[j]->tag.empty())
                tags += std::string(tags.empty() ? "" : "; ") + "abcd"[j] + " " + st[j]->tag;
        std::fprintf(f, "%s,%s,%s,%s,%d,%s,%s,%d,%s,%s,%d,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s\n",
                     q(r.table).c_str(), q(r.name).c_str(), q(r.size).c_str(), v(r.a.ms).c_str(),
                     r.a.runs, q(r.a.note).c_str(), v(r.b.ms).c_str(), r.b.runs,
                     q(r.b.note).c_str(), v(r.c.ms).c_str(), r.c.runs, q(r.c.note).c_str(),
                     v(r.flops).c_str(), v(r.bytes).c_str(), v(r.per).c_str(), q(r.check).c_str(),
                     v(r.d.ms).c_str(), r.d.runs, q(r.d.note).c_str(), v(r.pcie_bytes).c_str(),
                     q(tags).c_str(), q(goal_results_[i]).c_str());
    }
    const bool ok = std::fclose(f) == 0;
    if (!ok) std::fprintf(stderr, "gpusvd-bench: error writing %s\n", opt_.csv.c_str());
    return ok;
}

std::string check_text(double rel, double tol, bool *failed) {
    char buf[64];
    if (rel <= tol) {
        std::snprintf(buf, sizeof buf, "ok %.1e", rel);
        return buf;
    }
    *failed = true;
    std::snprintf(buf, sizeof buf, "MISMATCH %.1e", rel);
    return buf;
}

std::string status_text(gpusvdHandle_t h, gpusvdStatus_t st) {
    std::string s = gpusvdGetStatusName(st);
    const char *m = gpusvdGetErrorMessage(h);
    if (m && *m) s += std::string(": ") + m;
    return s;
}

}  // namespace bench
