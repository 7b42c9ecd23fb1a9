// The benchmark shape sets, as canonical descriptor strings (batch and layouts are set by the caller).
#pragma once

#include <string>
#include <vector>

namespace convcheck::bench {

struct Shape {
    std::string set;         // resnet50, mobilenet_v2, deeplab, conv3d
    std::string name;        // e.g. res2_3x3
    std::string descriptor;  // canonical string without n, dt, data, wei
};

// Every shape of every set, in set order.
const std::vector<Shape>& all_shapes();
// The names of the sets.
std::vector<std::string> set_names();
// "a,b,c" -> {"a", "b", "c"} (empty items dropped): the tables' list options.
std::vector<std::string> split_list(const std::string& text);

}  // namespace convcheck::bench
