// ResNet-50 (v1.5: the stride sits on the 3x3), MobileNet-v2 (depthwise and pointwise), a dilated
// DeepLab-v3 ASPP layer, and a C3D-style 3-D convolution.
#include "shapes.hpp"

namespace convcheck::bench {

const std::vector<Shape>& all_shapes() {
    static const std::vector<Shape> shapes = {
        {"resnet50", "conv1_7x7s2", "c=3,o=64,in=224x224,k=7x7,s=2x2,pb=3x3,pe=3x3"},
        {"resnet50", "res2_1x1_64", "c=64,o=64,in=56x56,k=1x1"},
        {"resnet50", "res2_3x3", "c=64,o=64,in=56x56,k=3x3,pb=1x1,pe=1x1"},
        {"resnet50", "res2_1x1_256", "c=64,o=256,in=56x56,k=1x1"},
        {"resnet50", "res2_1x1_reduce", "c=256,o=64,in=56x56,k=1x1"},
        {"resnet50", "res3_3x3s2", "c=128,o=128,in=56x56,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"resnet50", "res3_3x3", "c=128,o=128,in=28x28,k=3x3,pb=1x1,pe=1x1"},
        {"resnet50", "res3_1x1_512", "c=128,o=512,in=28x28,k=1x1"},
        {"resnet50", "res3_downsample", "c=256,o=512,in=56x56,k=1x1,s=2x2"},
        {"resnet50", "res4_3x3s2", "c=256,o=256,in=28x28,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"resnet50", "res4_3x3", "c=256,o=256,in=14x14,k=3x3,pb=1x1,pe=1x1"},
        {"resnet50", "res4_1x1_1024", "c=256,o=1024,in=14x14,k=1x1"},
        {"resnet50", "res4_1x1_reduce", "c=1024,o=256,in=14x14,k=1x1"},
        {"resnet50", "res5_3x3s2", "c=512,o=512,in=14x14,k=3x3,s=2x2,pb=1x1,pe=1x1"},
        {"resnet50", "res5_3x3", "c=512,o=512,in=7x7,k=3x3,pb=1x1,pe=1x1"},
        {"resnet50", "res5_1x1_2048", "c=512,o=2048,in=7x7,k=1x1"},
        {"mobilenet_v2", "dw32_112", "c=32,o=32,g=32,in=112x112,k=3x3,pb=1x1,pe=1x1"},
        {"mobilenet_v2", "dw96_112s2", "c=96,o=96,g=96,in=112x112,k=3x3,s=2x2,pb=0x0,pe=1x1"},
        {"mobilenet_v2", "dw144_56", "c=144,o=144,g=144,in=56x56,k=3x3,pb=1x1,pe=1x1"},
        {"mobilenet_v2", "dw192_28", "c=192,o=192,g=192,in=28x28,k=3x3,pb=1x1,pe=1x1"},
        {"mobilenet_v2", "dw576_14", "c=576,o=576,g=576,in=14x14,k=3x3,pb=1x1,pe=1x1"},
        {"mobilenet_v2", "dw960_7", "c=960,o=960,g=960,in=7x7,k=3x3,pb=1x1,pe=1x1"},
        {"mobilenet_v2", "pw16_96_112", "c=16,o=96,in=112x112,k=1x1"},
        {"mobilenet_v2", "pw144_24_56", "c=144,o=24,in=56x56,k=1x1"},
        {"mobilenet_v2", "pw192_32_28", "c=192,o=32,in=28x28,k=1x1"},
        {"mobilenet_v2", "pw576_96_14", "c=576,o=96,in=14x14,k=1x1"},
        {"mobilenet_v2", "pw960_320_7", "c=960,o=320,in=7x7,k=1x1"},
        {"deeplab", "aspp_3x3_rate6", "c=256,o=256,in=33x33,k=3x3,d=6x6,pb=6x6,pe=6x6"},
        {"conv3d", "c3d_3x3x3", "c=64,o=64,in=8x28x28,k=3x3x3,pb=1x1x1,pe=1x1x1"},
    };
    return shapes;
}

std::vector<std::string> set_names() { return {"resnet50", "mobilenet_v2", "deeplab", "conv3d"}; }

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = text.find(',', at);
        const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

}  // namespace convcheck::bench
