// The blocked kernel's grouping of a chunk's pixels by the taps they read (blocked_items, for layers with
// kBlockedGroupFrom products per output and border pixels), included by blocked_kernels.inl inside its ISA
// namespace; kMaxChunk and interior_ranges come from there.

namespace {

// The taps of kernel axis `axis` (1 or 2) that output position o reads inside the input, [*first, *end),
// as a class: 0 when every tap is inside, else 1 + first * (K + 1) + end.
i64 tap_class(const Geometry& g, int axis, i64 o) {
    const i64 k = g.kernel[axis], at = o * g.stride[axis] - g.pad_begin[axis];
    i64 first = 0, end = 0;
    for (i64 t = 0; t < k; ++t) {
        const i64 i = at + t * g.dilation[axis];
        if (i < 0) first = t + 1;
        if (i < g.in[axis]) end = t + 1;
    }
    return first == 0 && end == k ? 0 : 1 + first * (k + 1) + end;
}

constexpr int kMaxGroups = 16;

// A chunk's pixels regrouped by the taps they read, as oneDNN's kernels emit no product of a padding
// zero: a tile of pixels that skip the same taps skips them all. The classes: the interior, each class of
// border row (all its columns: a corner's taps are a subset of its row's), each class of border column
// among the interior rows. Each class in ascending order gives as many whole tiles (of `full` pixels) as
// it fills, one group each; what is left of every class forms the last group, in tiles of mixed pixels
// (which visit the union of their taps): no tile narrower than it must be. Within a group the pixels
// keep their raster order. Sets order[i] (the raster index of the i-th pixel) and the groups' ends;
// returns the number of groups, which depends on the chunk alone. Over kMaxGroups - 1 classes: one group
// in raster order.
i64 group_pixels(const Geometry& g, i64 count, const i64* rows, const i64* cols, int full, i64* order, i64* group_ends) {
    const i64 column_classes = (g.kernel[2] + 1) * (g.kernel[2] + 1) + 1;
    i64 inner[3], inner_end[3];
    interior_ranges(g, inner, inner_end);
    const auto classify = [&](int axis, i64 o) {
        return o >= inner[axis] && o < inner_end[axis] ? 0 : tap_class(g, axis, o);
    };
    // per pixel its class's index (classes numbered as met); runs of one class cost one comparison
    i64 class_of[kMaxChunk], distinct[kMaxGroups], members[kMaxGroups], classes = 0, last_row = -1, row_key = 0;
    for (i64 i = 0, c = -1; i < count; ++i) {
        if (rows[i] != last_row) last_row = rows[i], row_key = classify(1, rows[i]) * column_classes;
        const i64 key = row_key != 0 ? row_key : classify(2, cols[i]);
        if (c < 0 || distinct[c] != key) {
            c = 0;
            while (c < classes && distinct[c] != key) ++c;
            if (c == classes) {
                if (classes == kMaxGroups - 1) {
                    for (i64 j = 0; j < count; ++j) order[j] = j;
                    group_ends[0] = count;
                    return 1;
                }
                distinct[classes] = key;
                members[classes++] = 0;
            }
        }
        class_of[i] = c;
        ++members[c];
    }
    // the classes in ascending key order (the interior, 0, first); each one's whole tiles start at
    // whole_at[c], its rest at rest_at[c] (after every class's whole tiles)
    i64 sorted[kMaxGroups], whole[kMaxGroups], whole_at[kMaxGroups], rest_at[kMaxGroups], taken[kMaxGroups];
    for (i64 c = 0; c < classes; ++c) {
        i64 d = c;
        for (; d > 0 && distinct[sorted[d - 1]] > distinct[c]; --d) sorted[d] = sorted[d - 1];
        sorted[d] = c;
    }
    i64 groups = 0, at = 0;
    for (i64 k = 0; k < classes; ++k) {
        const i64 c = sorted[k];
        whole[c] = members[c] / full * full;
        whole_at[c] = at;
        taken[c] = 0;
        at += whole[c];
        if (whole[c] > 0) group_ends[groups++] = at;
    }
    for (i64 k = 0; k < classes; ++k) {
        const i64 c = sorted[k];
        rest_at[c] = at;
        at += members[c] - whole[c];
    }
    if (groups == 0 || group_ends[groups - 1] < count) group_ends[groups++] = count;
    for (i64 i = 0; i < count; ++i) {
        const i64 c = class_of[i], t = taken[c]++;
        const i64 to = t < whole[c] ? whole_at[c] + t : rest_at[c] + t - whole[c];
        order[to] = i;
    }
    return groups;
}

}  // namespace
