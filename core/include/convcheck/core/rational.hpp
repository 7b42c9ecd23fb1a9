// Exact rational arithmetic on 64-bit integers, for the CC layer's projected grid (seed 004, Eq. 2).
//
// SPEC-NOTES §4: "Compute ceil and the window choice in exact arithmetic when s is rational (p/q):
// a plain float ceil(1.1*50) gives 56". A Rational is always in lowest terms with a positive
// denominator, so equal values have equal representations. Every operation checks for overflow
// with __builtin_*_overflow and throws RationalOverflow (never wraps, never UB); INT64_MIN is
// refused as a numerator or denominator so that negation and gcd are always defined.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace convcheck {

// An intermediate result does not fit in 64 bits. The message names the operation and operands.
class RationalOverflow : public std::overflow_error {
public:
    using std::overflow_error::overflow_error;
};

class Rational {
public:
    constexpr Rational() = default;
    // The integer n.
    Rational(std::int64_t n) : Rational(n, 1) {}  // NOLINT: implicit on purpose (2 * r, r + 1)
    // n / d in lowest terms. Throws std::invalid_argument for d == 0, RationalOverflow for INT64_MIN.
    Rational(std::int64_t n, std::int64_t d) {
        if (d == 0) throw std::invalid_argument("rational " + std::to_string(n) + "/0: the denominator is zero");
        if (n == kMin || d == kMin)
            throw RationalOverflow("rational " + std::to_string(n) + "/" + std::to_string(d) +
                                   ": INT64_MIN is outside the supported range");
        if (d < 0) {
            n = -n;
            d = -d;
        }
        const std::int64_t g = std::gcd(n, d);
        num_ = n / g;
        den_ = d / g;
    }

    std::int64_t numerator() const { return num_; }
    std::int64_t denominator() const { return den_; }
    bool is_integer() const { return den_ == 1; }

    // The nearest double (one rounding when |num| and den are below 2^53, at most two otherwise).
    double to_double() const { return static_cast<double>(num_) / static_cast<double>(den_); }

    // Mathematical floor and ceil (not C truncation).
    std::int64_t floor() const {
        const std::int64_t q = num_ / den_;
        return (num_ % den_ != 0 && num_ < 0) ? q - 1 : q;
    }
    std::int64_t ceil() const {
        const std::int64_t q = num_ / den_;
        return (num_ % den_ != 0 && num_ > 0) ? q + 1 : q;
    }

    friend Rational operator+(const Rational& a, const Rational& b) {
        // a/b + c/d = (a*(d/g) + c*(b/g)) / (b*(d/g)), g = gcd(b, d)
        const std::int64_t g = std::gcd(a.den_, b.den_);
        std::int64_t left, right, num, den;
        if (__builtin_mul_overflow(a.num_, b.den_ / g, &left) || __builtin_mul_overflow(b.num_, a.den_ / g, &right) ||
            __builtin_add_overflow(left, right, &num) || __builtin_mul_overflow(a.den_, b.den_ / g, &den))
            overflow(a, "+", b);
        return checked(num, den, a, "+", b);
    }
    friend Rational operator-(const Rational& a) { return Rational(-a.num_, a.den_); }  // -num never overflows
    friend Rational operator-(const Rational& a, const Rational& b) { return a + (-b); }
    friend Rational operator*(const Rational& a, const Rational& b) {
        // cross-reduce first so that the products stay as small as possible
        // (gcd(x, den) >= 1 because denominators are positive)
        const std::int64_t g1 = std::gcd(a.num_, b.den_), g2 = std::gcd(b.num_, a.den_);
        std::int64_t num, den;
        if (__builtin_mul_overflow(a.num_ / g1, b.num_ / g2, &num) ||
            __builtin_mul_overflow(a.den_ / g2, b.den_ / g1, &den))
            overflow(a, "*", b);
        return checked(num, den, a, "*", b);
    }
    friend Rational operator/(const Rational& a, const Rational& b) {
        if (b.num_ == 0) throw std::invalid_argument("rational division by zero: " + a.to_string() + " / 0");
        return a * Rational(b.den_, b.num_);
    }
    Rational& operator+=(const Rational& b) { return *this = *this + b; }
    Rational& operator-=(const Rational& b) { return *this = *this - b; }

    friend bool operator==(const Rational& a, const Rational& b) { return a.num_ == b.num_ && a.den_ == b.den_; }
    friend bool operator<(const Rational& a, const Rational& b) {
        // denominators are positive: a/b < c/d  <=>  a*d < c*b
        std::int64_t left, right;
        if (__builtin_mul_overflow(a.num_, b.den_, &left) || __builtin_mul_overflow(b.num_, a.den_, &right))
            overflow(a, "<", b);
        return left < right;
    }
    friend bool operator>(const Rational& a, const Rational& b) { return b < a; }
    friend bool operator<=(const Rational& a, const Rational& b) { return !(b < a); }
    friend bool operator>=(const Rational& a, const Rational& b) { return !(a < b); }

    // "p" for an integer, "p/q" otherwise.
    std::string to_string() const {
        return den_ == 1 ? std::to_string(num_) : std::to_string(num_) + "/" + std::to_string(den_);
    }

    friend std::ostream& operator<<(std::ostream& os, const Rational& r) { return os << r.to_string(); }

    // Parses "p" or "p/q" (decimal integers, optional leading '-' on p). Returns false on anything
    // else, on q == 0, and on values outside the supported range.
    static bool parse(std::string_view text, Rational* out) {
        const std::size_t slash = text.find('/');
        std::int64_t p = 0, q = 1;
        if (!parse_int(text.substr(0, slash), &p)) return false;
        if (slash != std::string_view::npos && !parse_int(text.substr(slash + 1), &q)) return false;
        if (q == 0 || p == kMin || q == kMin) return false;
        *out = Rational(p, q);
        return true;
    }

private:
    static constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

    [[noreturn]] static void overflow(const Rational& a, const char* op, const Rational& b) {
        throw RationalOverflow("rational arithmetic overflows 64 bits: " + a.to_string() + " " + op + " " +
                               b.to_string());
    }
    static Rational checked(std::int64_t num, std::int64_t den, const Rational& a, const char* op, const Rational& b) {
        if (num == kMin || den == kMin) overflow(a, op, b);
        return Rational(num, den);
    }
    static bool parse_int(std::string_view text, std::int64_t* value) {
        if (text.empty()) return false;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
        return ec == std::errc() && ptr == text.data() + text.size();
    }

    std::int64_t num_ = 0;
    std::int64_t den_ = 1;
};

}  // namespace convcheck
