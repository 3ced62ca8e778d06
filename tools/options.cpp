// Command-line option parsing for the commands that read a matrix file.
#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace gpusvd_cli {

namespace {

std::string lower(std::string s) {
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

int64_t parse_count(const std::string &command, const std::string &option,
                    const std::string &value) {
    const char *s = value.c_str();
    char *end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s, &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || v < 0 ||
        !std::isdigit(static_cast<unsigned char>(value[0])))
        usage_error(command,
                    "option " + option + " needs a non-negative integer, got '" + value + "'");
    return v;
}

/// Walks argv, splitting "--name=value" and "-xVALUE" forms.
class ArgCursor {
public:
    ArgCursor(const std::string &command, const ArgList &args) : command_(command), args_(args) {}
    bool done() const { return i_ >= args_.size(); }
    const std::string &next() { return args_[i_++]; }
    /// Value of an option: the rest of "--name=value" / "-xVALUE", else the next argument.
    std::string value(const std::string &option, const std::string &inline_value, bool has_inline) {
        if (has_inline) return inline_value;
        if (done()) usage_error(command_, "option " + option + " needs a value");
        return next();
    }

private:
    const std::string &command_;
    const ArgList &args_;
    size_t i_ = 0;
};

std::vector<std::string> split_names(const std::string &command, const std::string &value) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t comma = value.find(',', start);
        out.push_back(value.substr(start, comma == std::string::npos ? comma : comma - start));
        if (out.back().empty())
            usage_error(command, "--only needs result names, got '" + value + "'");
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

}  // namespace

void usage_error(const std::string &command, const std::string &what) {
    throw CliError(kExitUsage, what + " (see 'gpusvd help " + command + "')");
}

gpusvdBackend_t parse_backend(const std::string &value) {
    const std::string v = lower(value);
    if (v == "auto") return GPUSVD_BACKEND_AUTO;
    if (v == "cpu") return GPUSVD_BACKEND_CPU;
    if (v == "gpu") return GPUSVD_BACKEND_GPU;
    throw CliError(kExitUsage, "--backend must be auto, cpu or gpu, got '" + value + "'");
}

const char *backend_name(gpusvdBackend_t backend) {
    switch (backend) {
        case GPUSVD_BACKEND_AUTO:
            return "auto";
        case GPUSVD_BACKEND_CPU:
            return "cpu";
        case GPUSVD_BACKEND_GPU:
            return "gpu";
    }
    return "?";
}

FileOptions parse_file_options(const std::string &command, const ArgList &args, unsigned accept) {
    FileOptions o;
    o.command = command;
    bool have_file = false, only_files = false;
    ArgCursor cur(command, args);
    while (!cur.done()) {
        const std::string arg = cur.next();
        if (only_files || arg == "-" || arg.empty() || arg[0] != '-') {
            if (have_file)
                usage_error(command, "only one input file is accepted, got '" + o.file + "' and '" +
                                         arg + "'");
            o.file = arg;
            have_file = true;
            continue;
        }
        if (arg == "--") {
            only_files = true;
            continue;
        }
        // Split "--name=value"; short options with a value also take "-xVALUE".
        std::string name = arg, inline_value;
        bool has_inline = false;
        if (arg.compare(0, 2, "--") == 0) {
            const size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                name = arg.substr(0, eq);
                inline_value = arg.substr(eq + 1);
                has_inline = true;
            }
        } else if (arg.size() > 2 && (arg[1] == 'o' || arg[1] == 'k')) {
            name = arg.substr(0, 2);
            inline_value = arg.substr(2);
            has_inline = true;
        }
        auto no_value = [&] {
            if (has_inline) usage_error(command, "option " + name + " takes no value");
        };
        if (name == "--backend") {
            o.backend = parse_backend(cur.value(name, inline_value, has_inline));
        } else if (name == "--single") {
            no_value();
            o.precision = Precision::Single;
        } else if (name == "--double") {
            no_value();
            o.precision = Precision::Double;
        } else if (name == "--format") {
            const std::string v = lower(cur.value(name, inline_value, has_inline));
            if (v == "mm" || v == "mtx")
                o.format = OutFormat::MatrixMarket;
            else if (v == "csv")
                o.format = OutFormat::Csv;
            else if (v == "npy")
                o.format = OutFormat::Npy;
            else
                usage_error(command, "--format must be mm, csv or npy, got '" + v + "'");
        } else if (name == "--only") {
            for (const std::string &r :
                 split_names(command, cur.value(name, inline_value, has_inline)))
                o.only.push_back(r);
        } else if (name == "--header") {
            no_value();
            o.header = true;
        } else if (name == "-q" || name == "--quiet") {
            no_value();
            o.verbosity = 0;
        } else if (name == "-v" || name == "--verbose") {
            no_value();
            o.verbosity = 2;
        } else if (name == "-o" || name == "--output") {
            o.outdir = cur.value(name, inline_value, has_inline);
            if (o.outdir.empty()) usage_error(command, "option " + name + " needs a directory");
        } else if ((accept & kAcceptValuesOnly) && name == "--values-only") {
            no_value();
            o.values_only = true;
        } else if ((accept & kAcceptOrth) && name == "--mgs") {
            no_value();
            o.orth = GPUSVD_ORTH_MGS;
        } else if ((accept & kAcceptOrth) && name == "--mgs2") {
            no_value();
            o.orth = GPUSVD_ORTH_MGS2;
        } else if ((accept & kAcceptVectors) && name == "--vectors") {
            no_value();
            o.vectors = true;
        } else if ((accept & kAcceptK) && (name == "-k" || name == "--components")) {
            o.k = parse_count(command, name, cur.value(name, inline_value, has_inline));
        } else if ((accept & kAcceptStandardize) && name == "--standardize") {
            no_value();
            o.standardize = true;
        } else {
            usage_error(command, "unknown option '" + arg + "' for '" + command + "'");
        }
    }
    if (!have_file) usage_error(command, "'" + command + "' needs an input FILE");
    return o;
}

}  // namespace gpusvd_cli
