#include "convcheck/runner/printable.hpp"

#include <cstdint>

namespace convcheck::runner {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool in(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }

// The well-formed UTF-8 byte sequences (Unicode 15, table 3-7): for a lead byte, the range its second
// byte must fall in and the number of continuation bytes. {0, 0, -1} for a byte that cannot lead.
struct Lead {
    unsigned char second_lo, second_hi;
    int continuation;
};
Lead lead_of(unsigned char b) {
    if (in(b, 0xC2, 0xDF)) return {0x80, 0xBF, 1};
    if (b == 0xE0) return {0xA0, 0xBF, 2};
    if (in(b, 0xE1, 0xEC) || in(b, 0xEE, 0xEF)) return {0x80, 0xBF, 2};
    if (b == 0xED) return {0x80, 0x9F, 2};  // not the surrogates D800..DFFF
    if (b == 0xF0) return {0x90, 0xBF, 3};
    if (in(b, 0xF1, 0xF3)) return {0x80, 0xBF, 3};
    if (b == 0xF4) return {0x80, 0x8F, 3};  // not past U+10FFFF
    return {0, 0, -1};
}

// The length of the ANSI escape sequence starting at s[i] (s[i] == ESC).
std::size_t escape_length(std::string_view s, std::size_t i) {
    if (i + 1 >= s.size()) return 1;
    const unsigned char kind = static_cast<unsigned char>(s[i + 1]);
    if (kind == '[') {  // CSI: parameter and intermediate bytes 0x20..0x3F, then a final byte 0x40..0x7E
        std::size_t j = i + 2;
        while (j < s.size() && in(static_cast<unsigned char>(s[j]), 0x20, 0x3F)) ++j;
        return (j < s.size() && in(static_cast<unsigned char>(s[j]), 0x40, 0x7E) ? j + 1 : j) - i;
    }
    if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {  // OSC, DCS, APC, PM: up to BEL or ESC '\'
        std::size_t j = i + 2;
        while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1B' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
        if (j < s.size()) j += s[j] == '\x07' ? 1 : 2;
        return j - i;
    }
    return in(kind, 0x20, 0x7E) ? 2 : 1;  // ESC + one byte (ESC 7, ESC c, ...)
}

}  // namespace

std::string printable_line(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char b = static_cast<unsigned char>(s[i]);
        if (b == 0x1B) {
            i += escape_length(s, i);
        } else if (b == '\n' || b == '\r' || b == '\t' || b == '\v' || b == '\f') {
            out += ' ';
            ++i;
        } else if (b < 0x20 || b == 0x7F) {
            out += kReplacement;
            ++i;
        } else if (b < 0x80) {
            out += static_cast<char>(b);
            ++i;
        } else {
            const Lead lead = lead_of(b);
            std::size_t j = i + 1;
            bool ok = lead.continuation > 0;
            for (int k = 0; ok && k < lead.continuation; ++k, ++j) {
                const unsigned char lo = k == 0 ? lead.second_lo : 0x80, hi = k == 0 ? lead.second_hi : 0xBF;
                ok = j < s.size() && in(static_cast<unsigned char>(s[j]), lo, hi);
                if (!ok) break;
            }
            if (!ok) {
                out += kReplacement;  // the maximal ill-formed subpart: the lead and the valid bytes after it
                i = lead.continuation > 0 ? j : i + 1;
                continue;
            }
            const std::string_view sequence = s.substr(i, j - i);
            const bool c1 = b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;  // U+0080..U+009F
            const bool noncharacter = sequence == "\xEF\xBF\xBE" || sequence == "\xEF\xBF\xBF";  // U+FFFE, U+FFFF
            out += c1 || noncharacter ? kReplacement : sequence;
            i = j;
        }
    }
    return out;
}

}  // namespace convcheck::runner
