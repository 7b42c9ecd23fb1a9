# `convcheck describe` (describe.cpp here; describe_cc.cpp, describe_transposed.cpp): JSON output, and its
# command-line tests.
target_link_libraries(convcheck PRIVATE nlohmann_json::nlohmann_json)

if(CONVCHECK_BUILD_TESTS)
  # ONNX SAME_LOWER, in 7, k 4, s 2: t = 3, the extra pad at the beginning: 2/1, output 4
  add_test(NAME cli_describe_dialect
           COMMAND convcheck describe --dialect onnx auto_pad=SAME_LOWER in=7x7 k=4x4 strides=2x2)
  set_tests_properties(cli_describe_dialect PROPERTIES
    PASS_REGULAR_EXPRESSION "canonical  conv:n=1,c=1,o=1,g=1,in=7x7,k=4x4,s=2x2,d=1x1,pb=2x2,pe=1x1")
  # ... and TF's SAME, which puts the extra pad at the end, is marked as disagreeing
  add_test(NAME cli_describe_marks_disagreement
           COMMAND convcheck describe --dialect onnx auto_pad=SAME_LOWER in=7x7 k=4x4 strides=2x2)
  set_tests_properties(cli_describe_marks_disagreement PROPERTIES
    PASS_REGULAR_EXPRESSION "tensorflow          \\* 1x1         2x2         4x4")
  add_test(NAME cli_describe_descriptor COMMAND convcheck describe "conv:c=1,o=1,in=7,k=3,s=2,pb=1,pe=1")
  set_tests_properties(cli_describe_descriptor PROPERTIES PASS_REGULAR_EXPRESSION "output     4  \\(shape \\[1, 1, 4\\]")
  # a benchdnn problem string, read as benchdnn reads it (mb 2, FWD_B: bias), beside the dialects
  add_test(NAME cli_describe_benchdnn_problem COMMAND convcheck describe "g2mb1ic4ih7oc4oh4kh3sh2ph1n\"x\"")
  set_tests_properties(cli_describe_benchdnn_problem PROPERTIES PASS_REGULAR_EXPRESSION
    "canonical  conv:n=1,c=4,o=4,g=2,in=7x7,k=3x3,s=2x2,d=1x1,pb=1x1,pe=1x1,bias=1.*onnx")
  add_test(NAME cli_describe_dialects COMMAND convcheck describe --dialects)
  set_tests_properties(cli_describe_dialects PROPERTIES PASS_REGULAR_EXPRESSION "xnnpack")

  # Bad attributes: the framework's own error and exit code 2 (exactly).
  add_test(NAME cli_describe_framework_error_exits_2
           COMMAND sh -c "\"$0\" describe --dialect pytorch padding=same stride=2 in=7 k=3 2>&1; test $? -eq 2"
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_framework_error_exits_2 PROPERTIES
    PASS_REGULAR_EXPRESSION "padding='same' is not supported for strided convolutions")
  add_test(NAME cli_describe_unknown_dialect_exits_2
           COMMAND sh -c "\"$0\" describe --dialect caffe in=7 k=3 2>&1; test $? -eq 2" $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_unknown_dialect_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "unknown dialect")
  add_test(NAME cli_describe_bad_descriptor_exits_2
           COMMAND sh -c "\"$0\" describe conv:c=1,o=1,in=2,k=3 2>&1; test $? -eq 2" $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_bad_descriptor_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "exceeds the padded input")

  # --json parses, and says what the text says (Debian's python3 reads it).
  add_test(NAME cli_describe_json_parses
           COMMAND sh -c "\"$0\" describe --json --dialect cntk in=8 kernel=1:1 stride=3:1 autoPadding=true:false | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); assert d['pads_begin'] == [0] and d['pads_end'] == [-1] and d['output_size'] == [3], d; rows = {r['dialect']: r for r in d['dialects']}; assert rows['tensorflow']['pads_end'] == [0] and not rows['tensorflow']['agrees'], rows['tensorflow']; assert rows['onednn']['outcome'] == 'not_expressible'; print('json ok')\""
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_json_parses PROPERTIES PASS_REGULAR_EXPRESSION "json ok")
  add_test(NAME cli_describe_json_error_exits_2
           COMMAND sh -c "\"$0\" describe --json --dialect tensorflow padding=FULL in=7 k=3 | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); assert d['outcome'] == 'error' and d['error']['wording'] == 'framework', d; print('json error ok')\"; test $? -eq 0 && \"$0\" describe --json --dialect tensorflow padding=FULL in=7 k=3 >/dev/null; test $? -eq 2"
                   $<TARGET_FILE:convcheck>)

  # A CC descriptor (no ";" in a PASS_REGULAR_EXPRESSION: it would split it into alternatives): scale 2/3 on 8
  # -> out 6, g_0 = 0 + 7/2 - 5/(2*2/3) = -1/4, window [-1, 1] (support 3)
  add_test(NAME cli_describe_cc COMMAND convcheck describe "cc:cin=1,cout=1,in=8x5,scale=2/3x1/2,support=3x2")
  set_tests_properties(cli_describe_cc PROPERTIES
    PASS_REGULAR_EXPRESSION "output     6x3 .*axis h     in 8, scale 2/3, out 6. period 2.*  0      -1/4 \\(-0.25\\) +\\[-1, 1\\]  1 outside")
  add_test(NAME cli_describe_cc_json_parses
           COMMAND sh -c "\"$0\" describe --json 'cc:cin=1,cout=1,in=8x5,scale=2/3x1/2,support=3x2' | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); h, w = d['axes']; assert d['output_size'] == [6, 3] and h['grid_exact'][0] == '-1/4' and h['windows'][0] == {'first': -1, 'last': 1, 'outside': 1} and w['windows'][2] == {'first': 3, 'last': 4, 'outside': 0}, d; print('cc json ok')\""
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_cc_json_parses PROPERTIES PASS_REGULAR_EXPRESSION "cc json ok")
  add_test(NAME cli_describe_bad_cc_exits_2
           COMMAND sh -c "\"$0\" describe cc:cin=1,cout=1,in=8,scale=0 2>&1; test $? -eq 2" $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_bad_cc_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION "scale")
  # The new dialects are listed, and their errors are their own (TOSA's ERROR_IF text, exit 2)
  add_test(NAME cli_describe_lists_new_dialects COMMAND convcheck describe --dialects)
  set_tests_properties(cli_describe_lists_new_dialects PROPERTIES
    PASS_REGULAR_EXPRESSION "tf_convolution.*onednn_graph@<3.2.*xnnpack@git20220216.*tosa .*stablehlo ")
  add_test(NAME cli_describe_tosa_error_exits_2
           COMMAND sh -c "\"$0\" describe --dialect tosa in=6x5 k=3x3 stride=2x2 2>&1; test $? -eq 2" $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_tosa_error_exits_2 PROPERTIES
    PASS_REGULAR_EXPRESSION "ERROR_IF\\(OH != idiv_check")
endif()

# Transposed convolution: a canonical deconv: descriptor and a dialect, side by side (describe_transposed.cpp)
if(CONVCHECK_BUILD_TESTS)
  # in 4, k 3, s 2, pb 1, pe 0: out = 3*2 - 1 - 0 + 3 = 8; PyTorch says it with padding 1, output_padding 1
  add_test(NAME cli_describe_transposed_descriptor COMMAND convcheck describe "deconv:c=2,o=2,in=4,k=3,s=2,pb=1,pe=0")
  set_tests_properties(cli_describe_transposed_descriptor PROPERTIES PASS_REGULAR_EXPRESSION
    "forward    conv:n=1,c=2,o=2,g=1,in=8,k=3,s=2,d=1,pb=1,pe=0.*output     8 .*pytorch_transpose +1 +1 +1 +8 .*output_padding=1")
  # ONNX SAME_UPPER: output in*s = 6 (pads 0/1); PyTorch cannot crop the end alone: '-'
  add_test(NAME cli_describe_transposed_dialect COMMAND convcheck describe --dialect onnx_transpose in=3 k=3 strides=2 auto_pad=SAME_UPPER)
  set_tests_properties(cli_describe_transposed_dialect PROPERTIES PASS_REGULAR_EXPRESSION
    "canonical  deconv:n=1,c=1,o=1,g=1,in=3,k=3,s=2,d=1,pb=0,pe=1,op=0.*pytorch_transpose +- .*cannot say it.*onnx_transpose +0 +1 +0 +6 .*tosa_transpose +- .*onednn_deconvolution +0 +1 +0 +6 ")
  add_test(NAME cli_describe_transposed_error_exits_2
           COMMAND sh -c "\"$0\" describe --dialect pytorch_transpose in=4x4 k=3 output_padding=1 2>&1; test $? -eq 2" $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_transposed_error_exits_2 PROPERTIES
    PASS_REGULAR_EXPRESSION "output padding must be smaller than either stride or dilation")
  add_test(NAME cli_describe_transposed_json_parses
           COMMAND sh -c "\"$0\" describe --json --dialect tosa_transpose in=4x4 k=3x3 stride=2x2 out_pad=-1x0x1x1 | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); assert d['output_size'] == [8, 11] and d['pads_begin'] == [1, -1] and d['forward'].startswith('conv:'), d; rows = {r['dialect']: r for r in d['dialects']}; assert rows['tosa_transpose']['agrees'] and rows['pytorch_transpose']['outcome'] == 'error', rows; print('transposed json ok')\""
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_transposed_json_parses PROPERTIES PASS_REGULAR_EXPRESSION "transposed json ok")
  add_test(NAME cli_describe_lists_transposed_dialects COMMAND convcheck describe --dialects)
  set_tests_properties(cli_describe_lists_transposed_dialects PROPERTIES
    PASS_REGULAR_EXPRESSION "transposed convolution.*pytorch_transpose.*onnx_transpose.*tosa_transpose.*onednn_deconvolution")
endif()

# Quantized dialects (describe_quantized.cpp): TFLite's int8 conv read into a qconv: descriptor and its rule; a TOSA
# RESCALE convcheck has no rule for, refused (exit 2); a round trip: the canonical text described again is itself.
if(CONVCHECK_BUILD_TESTS)
  add_test(NAME cli_describe_tflite_int8
           COMMAND convcheck describe --dialect tflite op=CONV_2D c=3 o=4 in=8x9 k=3x3 padding=SAME stride_h=2 stride_w=2
                   input_scale=0.0625 input_zero_point=-3 filter_scale=0.25:0.125:0.375:0.0625 output_scale=0.5
                   output_zero_point=-10 fused_activation_function=RELU6 TFLITE_SINGLE_ROUNDING=1)
  set_tests_properties(cli_describe_tflite_int8 PROPERTIES PASS_REGULAR_EXPRESSION
    "canonical  qconv:n=1,c=3,o=4,g=1,in=8x9,k=3x3,s=2x2,d=1x1,pb=0x1,pe=1x1,.*dzp=-10,lo=-10,hi=2\nrule       single_rounding\nM          0.03125 0.015625 0.046875 0.0078125")
  add_test(NAME cli_describe_tosa_rescale_refused_exits_2
           COMMAND sh -c "\"$0\" describe --dialect tosa_rescale c=4 o=4 in=7x7 k=3x3 rescale.multiplier=536870912 rescale.shift=32 rescale.rounding_mode=DOUBLE_ROUND 2>&1; test $? -eq 2"
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_tosa_rescale_refused_exits_2 PROPERTIES PASS_REGULAR_EXPRESSION
    "rescale.rounding_mode = DOUBLE_ROUND.*another rule, which convcheck does not have")
  add_test(NAME cli_describe_quantized_round_trip
           COMMAND sh -c "c=$(\"$0\" describe --json --dialect tosa_rescale op=DEPTHWISE_CONV2D c=2 multiplier=2 in=6x5 k=3x3 input_zp=-2 rescale.per_channel=true rescale.multiplier=1610612736:1342177280:1073741824:1879048192 rescale.shift=36:37:38:39 rescale.rounding_mode=DOUBLE_ROUND | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); assert d['rule'] == 'double_rounding' and d['multipliers'][0] == 1610612736 / 2**36, d; print(d['canonical'])\") && \"$0\" describe --json \"$c\" | /usr/bin/python3 -c \"import json, sys; d = json.load(sys.stdin); assert d['canonical'] == sys.argv[1] and d['multipliers'][3] == 1879048192 / 2**39, d; print('round trip ok')\" \"$c\""
                   $<TARGET_FILE:convcheck>)
  set_tests_properties(cli_describe_quantized_round_trip PROPERTIES PASS_REGULAR_EXPRESSION "round trip ok")
  add_test(NAME cli_describe_lists_quantized_dialects COMMAND convcheck describe --dialects)
  set_tests_properties(cli_describe_lists_quantized_dialects PROPERTIES
    PASS_REGULAR_EXPRESSION "quantized convolution.*tflite .*tosa_rescale ")
endif()
