// The models suite: the distinct convolution layers of well-known networks at their real sizes,
// batch 1, bound mode; the ResNet-50 and MobileNet-v2 layers in their backward passes too. Slow
// against the reference (billions of multiply-adds in total): meant for nightly runs, not for CI.
#include <string>

#include "convcheck/runner/suites.hpp"

namespace convcheck::runner {

namespace {

std::string xs(std::int64_t v, int rank) {
    std::string s = std::to_string(v);
    for (int i = 1; i < rank; ++i) s += "x" + std::to_string(v);
    return s;
}

// A square/cubic layer: `rank` spatial axes of size `in`, kernel k, stride s, symmetric pad p,
// dilation d, groups g.
SuiteEntry layer(const std::string& name, int rank, std::int64_t c, std::int64_t o, std::int64_t in, std::int64_t k,
                 std::int64_t s = 1, std::int64_t p = 0, std::int64_t g = 1, std::int64_t d = 1, bool bias = false) {
    return {"c=" + std::to_string(c) + ",o=" + std::to_string(o) + ",g=" + std::to_string(g) + ",in=" + xs(in, rank) +
                ",k=" + xs(k, rank) + ",s=" + xs(s, rank) + ",d=" + xs(d, rank) + ",pb=" + xs(p, rank) +
                ",pe=" + xs(p, rank) + ",bias=" + (bias ? "1" : "0"),
            "b", name};
}

}  // namespace

std::vector<SuiteEntry> models_suite() {
    std::vector<SuiteEntry> e;
    // ResNet-50 v1.5 (224x224): the stem and the distinct bottleneck convolutions of each stage
    e.push_back(layer("resnet50/conv1", 2, 3, 64, 224, 7, 2, 3));
    e.push_back(layer("resnet50/res2_1x1_reduce", 2, 64, 64, 56, 1));
    e.push_back(layer("resnet50/res2_3x3", 2, 64, 64, 56, 3, 1, 1));
    e.push_back(layer("resnet50/res2_1x1_expand", 2, 64, 256, 56, 1));
    e.push_back(layer("resnet50/res2_1x1_reduce_256", 2, 256, 64, 56, 1));
    e.push_back(layer("resnet50/res3_1x1_reduce", 2, 256, 128, 56, 1));
    e.push_back(layer("resnet50/res3_3x3_stride2", 2, 128, 128, 56, 3, 2, 1));
    e.push_back(layer("resnet50/res3_downsample", 2, 256, 512, 56, 1, 2));
    e.push_back(layer("resnet50/res3_3x3", 2, 128, 128, 28, 3, 1, 1));
    e.push_back(layer("resnet50/res4_3x3_stride2", 2, 256, 256, 28, 3, 2, 1));
    e.push_back(layer("resnet50/res4_3x3", 2, 256, 256, 14, 3, 1, 1));
    e.push_back(layer("resnet50/res4_1x1_expand", 2, 256, 1024, 14, 1));
    e.push_back(layer("resnet50/res5_3x3_stride2", 2, 512, 512, 14, 3, 2, 1));
    e.push_back(layer("resnet50/res5_3x3", 2, 512, 512, 7, 3, 1, 1));
    e.push_back(layer("resnet50/res5_1x1_expand", 2, 512, 2048, 7, 1));
    // MobileNet-v2 (224x224): stem, depthwise 3x3 (stride 1 and 2) and pointwise layers
    e.push_back(layer("mobilenet_v2/conv_stem", 2, 3, 32, 224, 3, 2, 1));
    e.push_back(layer("mobilenet_v2/dw_32", 2, 32, 32, 112, 3, 1, 1, 32));
    e.push_back(layer("mobilenet_v2/pw_32_16", 2, 32, 16, 112, 1));
    e.push_back(layer("mobilenet_v2/expand_16_96", 2, 16, 96, 112, 1));
    e.push_back(layer("mobilenet_v2/dw_96_stride2", 2, 96, 96, 112, 3, 2, 1, 96));
    e.push_back(layer("mobilenet_v2/dw_144", 2, 144, 144, 56, 3, 1, 1, 144));
    e.push_back(layer("mobilenet_v2/dw_192_stride2", 2, 192, 192, 28, 3, 2, 1, 192));
    e.push_back(layer("mobilenet_v2/project_384_64", 2, 384, 64, 14, 1));
    e.push_back(layer("mobilenet_v2/dw_576_stride2", 2, 576, 576, 14, 3, 2, 1, 576));
    e.push_back(layer("mobilenet_v2/dw_960", 2, 960, 960, 7, 3, 1, 1, 960));
    e.push_back(layer("mobilenet_v2/pw_320_1280", 2, 320, 1280, 7, 1));
    // VGG-16 (224x224): one 3x3 layer per distinct (channels, size)
    e.push_back(layer("vgg16/conv1_1", 2, 3, 64, 224, 3, 1, 1, 1, 1, true));
    e.push_back(layer("vgg16/conv2_1", 2, 64, 128, 112, 3, 1, 1, 1, 1, true));
    e.push_back(layer("vgg16/conv3_2", 2, 256, 256, 56, 3, 1, 1, 1, 1, true));
    e.push_back(layer("vgg16/conv4_2", 2, 512, 512, 28, 3, 1, 1, 1, 1, true));
    e.push_back(layer("vgg16/conv5_2", 2, 512, 512, 14, 3, 1, 1, 1, 1, true));
    // DeepLab-v3 (output stride 16, 33x33 features): atrous 3x3 with rate = dilation = pad
    e.push_back(layer("deeplab_v3/block4_rate2", 2, 512, 512, 33, 3, 1, 2, 1, 2));
    e.push_back(layer("deeplab_v3/aspp_rate6", 2, 2048, 256, 33, 3, 1, 6, 1, 6));
    e.push_back(layer("deeplab_v3/aspp_rate12", 2, 2048, 256, 33, 3, 1, 12, 1, 12));
    e.push_back(layer("deeplab_v3/aspp_rate18", 2, 2048, 256, 33, 3, 1, 18, 1, 18));
    e.push_back(layer("deeplab_v3/aspp_1x1", 2, 2048, 256, 33, 1));
    // 3-D UNet (Cicek et al.) on a 32^3 patch, 3x3x3 "same" convolutions; 2x2x2 stride-2 downsampling
    e.push_back(layer("unet3d/enc1_a", 3, 1, 32, 32, 3, 1, 1));
    e.push_back(layer("unet3d/enc1_b", 3, 32, 64, 32, 3, 1, 1));
    e.push_back(layer("unet3d/down1", 3, 64, 64, 32, 2, 2));
    e.push_back(layer("unet3d/enc2_b", 3, 64, 128, 16, 3, 1, 1));
    e.push_back(layer("unet3d/enc3_b", 3, 128, 256, 8, 3, 1, 1));
    e.push_back(layer("unet3d/dec2", 3, 384, 128, 16, 3, 1, 1));
    e.push_back(layer("unet3d/head_1x1", 3, 64, 3, 32, 1, 1, 0, 1, 1, true));
    // 1-D audio: Conv-TasNet encoder, WaveNet dilated causal convolutions, Jasper/Wav2Letter blocks
    e.push_back({"c=1,o=512,in=16000,k=16,s=8,bias=0", "b", "conv_tasnet/encoder"});
    for (int d : {1, 8, 64, 512})
        e.push_back({"c=32,o=64,in=4000,k=2,d=" + std::to_string(d) + ",pb=" + std::to_string(d) + ",pe=0,bias=1", "b",
                     "wavenet/causal_dilation_" + std::to_string(d)});
    e.push_back({"c=64,o=256,in=800,k=11,s=2,pb=5,pe=5,bias=1", "b", "jasper/prologue"});
    e.push_back({"c=256,o=256,in=400,k=13,pb=6,pe=6", "b", "jasper/block1"});
    e.push_back({"c=256,o=256,g=256,in=400,k=33,pb=16,pe=16", "b", "quartznet/depthwise_k33"});
    e.push_back({"c=40,o=250,in=700,k=48,s=2,pb=23,pe=23,bias=1", "b", "wav2letter/conv1"});
    // The backward passes of the ResNet-50 and MobileNet-v2 layers (docs/passes.md): backward data and
    // backward weights of each, bound mode, appended so that every forward case keeps its id and seed.
    const std::size_t forward = e.size();
    for (std::size_t i = 0; i < forward; ++i) {
        const std::string name = e[i].name;
        if (name.rfind("resnet50/", 0) != 0 && name.rfind("mobilenet_v2/", 0) != 0) continue;
        for (const char* dir : {"bwd_d", "bwd_w"}) e.push_back({e[i].descriptor + ",dir=" + dir, "b", name + "/" + dir});
    }
    return e;
}

}  // namespace convcheck::runner
