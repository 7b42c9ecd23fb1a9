// printable_line(): whatever bytes a plugin sends, the text that reaches JSON, JUnit XML and the
// terminal is one line of valid UTF-8 without control characters or escape sequences; valid text
// passes unchanged. Invalid UTF-8 becomes one U+FFFD per maximal ill-formed subpart (Unicode 15, 3.9).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "convcheck/runner/printable.hpp"

using convcheck::runner::printable_line;

namespace {

const std::string R = "\xEF\xBF\xBD";  // U+FFFD

std::string hex(const std::string& bytes) {
    std::string out = "input bytes:";
    for (unsigned char b : bytes) out += " " + std::to_string(b);
    return out;
}

TEST(Printable, ValidTextPassesUnchanged) {
    for (const std::string s : {"", "plain ASCII <&>\"'", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9D\x84\x9E clef",
                                "\xE6\xBC\xA2\xE5\xAD\x97", "max \xF4\x8F\xBF\xBF", "U+FFFD itself \xEF\xBF\xBD"})
        EXPECT_EQ(printable_line(s), s);
}

TEST(Printable, InvalidUtf8BecomesOneReplacementPerMaximalSubpart) {
    EXPECT_EQ(printable_line("a\xFF" "b"), "a" + R + "b");                  // a byte that never leads
    EXPECT_EQ(printable_line("\xC3\x28"), R + "(");                         // a lead without its continuation
    EXPECT_EQ(printable_line("end \xE2\x82"), "end " + R);                  // truncated at the end
    EXPECT_EQ(printable_line("\xE2\x82\x28"), R + "(");                     // truncated in the middle
    EXPECT_EQ(printable_line("\xC0\xAF"), R + R);                           // overlong '/'
    EXPECT_EQ(printable_line("\xE0\x80\xAF"), R + R + R);                   // overlong, 3 bytes
    EXPECT_EQ(printable_line("\xED\xA0\x80"), R + R + R);                   // a surrogate, U+D800
    EXPECT_EQ(printable_line("\xF4\x90\x80\x80"), R + R + R + R);           // past U+10FFFF
    EXPECT_EQ(printable_line("\x80\xBF"), R + R);                           // lone continuation bytes
}

TEST(Printable, AnsiEscapeSequencesAreRemoved) {
    EXPECT_EQ(printable_line("\x1B[1;31mred\x1B[0m"), "red");               // CSI (SGR colours)
    EXPECT_EQ(printable_line("\x1B[2K\x1B[1Aline"), "line");                // erase line, cursor up
    EXPECT_EQ(printable_line("\x1B]0;title\x07text"), "text");              // OSC ended by BEL
    EXPECT_EQ(printable_line("\x1B]8;;http://x\x1B\\link\x1B]8;;\x1B\\"), "link");  // OSC 8 hyperlink, ST
    EXPECT_EQ(printable_line("\x1B" "cafter"), "after");                    // ESC + one byte
    EXPECT_EQ(printable_line("at the end \x1B"), "at the end ");
    EXPECT_EQ(printable_line("\x1B[31"), "");                               // cut off before its final byte
}

TEST(Printable, LineBreaksBecomeSpacesAndOtherControlsReplacement) {
    EXPECT_EQ(printable_line("line1\nline2\r\n\ttab\v\f"), "line1 line2   tab  ");
    EXPECT_EQ(printable_line("bell\x07 nul-free \x01\x08\x7F"), "bell" + R + " nul-free " + R + R + R);
    EXPECT_EQ(printable_line("C1 \xC2\x85\xC2\x9B"), "C1 " + R + R);         // NEL, CSI as C1 controls
    EXPECT_EQ(printable_line("\xC2\xA0nbsp"), "\xC2\xA0nbsp");               // U+00A0 is printable
    EXPECT_EQ(printable_line("\xEF\xBF\xBE\xEF\xBF\xBF"), R + R);            // non-characters XML forbids
}

// Random bytes: the result always serialises as strict JSON (nlohmann throws on invalid UTF-8), holds
// no byte XML 1.0 or a terminal cannot take, and is a fixed point.
TEST(Printable, AnyBytesGiveValidPrintableText) {
    std::mt19937 rng(15);
    const std::string alphabet = "a<&\x1B[]\x07\n\t\x01\x7F\xC2\x80\x9B\xA0\xBF\xC0\xE0\xED\xEF\xF0\xF4\xF5\xFF";
    for (int trial = 0; trial < 20000; ++trial) {
        std::string bytes(rng() % 24, '\0');
        for (char& b : bytes) b = rng() % 3 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
        const std::string out = printable_line(bytes);
        SCOPED_TRACE(hex(bytes));
        EXPECT_NO_THROW((void)nlohmann::json(out).dump());
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto b = static_cast<unsigned char>(out[i]);
            ASSERT_FALSE(b < 0x20 || b == 0x7F) << "control byte " << int(b) << " at " << i;
            ASSERT_FALSE(b == 0xC2 && i + 1 < out.size() && static_cast<unsigned char>(out[i + 1]) < 0xA0)
                << "a C1 control at " << i;
        }
        ASSERT_EQ(out.find("\xEF\xBF\xBE"), std::string::npos);
        ASSERT_EQ(out.find("\xEF\xBF\xBF"), std::string::npos);
        ASSERT_EQ(printable_line(out), out);
    }
}

}  // namespace
