// Text that a plugin sends (error messages, decline reasons, implementation and version strings) ends
// up in JSON, JUnit XML, the HTML report and on the terminal. A plugin can send any bytes; CI systems
// drop a whole JUnit file over one byte XML 1.0 cannot hold, and an ANSI escape sequence repaints a
// terminal. printable_line() turns any bytes into one line of valid UTF-8 that every one of those
// formats holds as it is:
//   - invalid UTF-8 (a stray byte, a truncated or overlong sequence, a surrogate, a code point past
//     U+10FFFF) becomes U+FFFD, one per maximal ill-formed subpart (Unicode 15, section 3.9);
//   - ANSI escape sequences (ESC [ ... final byte, ESC ] ... BEL or ESC \, ESC + one byte) are removed;
//   - line breaks and tabs (\n, \r, \t, \v, \f) become one space each: the fields are one line;
//   - every other control character (C0, DEL, C1) and the non-characters U+FFFE, U+FFFF become U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace convcheck::runner {

std::string printable_line(std::string_view bytes);

}  // namespace convcheck::runner
