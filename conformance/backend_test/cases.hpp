// The table of geometries every backend plugin is checked on. Each geometry runs in every dtype,
// data format and filter format that the plugin claims; a case is named <geometry>/<dtype>_<data>_<wei>.
#pragma once

#include <string>
#include <vector>

#include "convcheck/core/descriptor.hpp"

namespace convcheck::backend_test {

struct NamedDescriptor {
    const char* name;        // what the case exercises, one word
    const char* descriptor;  // canonical descriptor without dt/data/wei (they vary per case)
};

const std::vector<NamedDescriptor>& geometries();

struct Case {
    std::string name;
    ConvDescriptor descriptor;
};

// Every geometry in every dtype / data format / filter format combination.
std::vector<Case> all_cases();

}  // namespace convcheck::backend_test
