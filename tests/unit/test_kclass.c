/* test_kclass.c - kernel classes: the shipped rule file on kernel names
 * of the kinds real profiles hold (written here, in the shapes the
 * libraries name their kernels), the precedence rules, and rule-file
 * errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../profile/kclass.h"

static int load_shipped(void **state)
{
	const char *root = getenv("ROOT");
	char path[4096];
	struct kclass_rules *r;
	struct hr_err e;

	hr_err_clear(&e);
	snprintf(path, sizeof(path), "%s/dataset/maps/kernel-classes.rules",
		 root ? root : ".");
	if (kclass_load(path, &r, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	*state = r;
	return 0;
}

static int free_rules(void **state)
{
	kclass_free(*state);
	return 0;
}

struct named {
	const char *name;
	enum kclass cls;
};

static void check_all(const struct kclass_rules *r, const struct named *v,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum kclass got = kclass_of(r, "kernel", v[i].name);

		if (got != v[i].cls)
			fail_msg("%s: got %s, want %s", v[i].name,
				 kclass_name(got), kclass_name(v[i].cls));
	}
}

#define CHECK(r, v) check_all(r, v, sizeof(v) / sizeof(*v))

static void vendor_gemm_names_are_gemm(void **state)
{
	static const struct named v[] = {
		{ "volta_sgemm_128x32_nn", KC_GEMM },
		{ "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x6_tn",
		  KC_GEMM },
		{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
		  "_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		  KC_GEMM },
		{ "nvjet_tst_192x192_64x3_2x1_v_bz_coopA_TNT", KC_GEMM },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_"
		  "16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_"
		  "nn_align4::Params)", KC_GEMM },
		{ "void splitKreduce_kernel<32, 16, int, float, float, float, "
		  "float, true, false, false>(cublasSplitKParams<float>)",
		  KC_GEMM },
		{ "gemv2T_kernel_val<int, int, float, float, float, float, 128,"
		  " 16, 4, 4, false, false>", KC_GEMM },
		{ "triton_tem_fused_addmm_0", KC_GEMM },
	};

	CHECK(*state, v);
}

static void convolution_is_tested_before_gemm(void **state)
{
	/* Both carry "gemm"; the convolution rule comes first. */
	static const struct named v[] = {
		{ "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc"
		  "_tilesize128x32x32_stage4_warpsize4x1x1_g1_tensor16x8x16_"
		  "execute_kernel__5x_cudnn", KC_CONVOLUTION },
		{ "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemm"
		  "ConvolutionIS0_EEEEvNT_6ParamsE", KC_CONVOLUTION },
		{ "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1",
		  KC_CONVOLUTION },
		{ "void cudnn::winograd_nonfused::winogradForwardData4x4<float,"
		  " float>(cudnn::winograd_nonfused::WinogradDataParams<float, "
		  "float>)", KC_CONVOLUTION },
		{ "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, "
		  "false>(int, int, int, float const*)", KC_CONVOLUTION },
	};

	CHECK(*state, v);
}

static void attention_kernels_are_attention(void **state)
{
	static const struct named v[] = {
		{ "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits"
		  "<128, 128, 64, 4, false, false, cutlass::half_t>>(pytorch_"
		  "flash::Flash_fwd_params)", KC_ATTENTION },
		{ "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", KC_ATTENTION },
		{ "fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEff"
		  "Attention::AttentionKernel<cutlass::half_t>::Params)",
		  KC_ATTENTION },
		{ "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_"
		  "knob_7_64x128x128_4x1x1", KC_ATTENTION },
		{ "cutlass::device_kernel<flash::enable_sm90_or_later<flash::"
		  "FlashAttnFwdSm90<int>>>", KC_ATTENTION },
	};

	CHECK(*state, v);
}

static void norm_softmax_embedding_reduction_elementwise(void **state)
{
	static const struct named v[] = {
		{ "void at::native::(anonymous namespace)::vectorized_layer_"
		  "norm_kernel<float, float>(int, float, float const*)",
		  KC_NORMALIZATION },
		/* cuDNN batch norm: "cudnn" in it, normalization first. */
		{ "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512,"
		  " true, 1>(cudnnTensorStruct)", KC_NORMALIZATION },
		{ "triton_red_fused_rms_norm_0", KC_NORMALIZATION },
		{ "void (anonymous namespace)::softmax_warp_forward<c10::Half, "
		  "c10::Half, float, 7, false, false>(c10::Half*)", KC_SOFTMAX },
		{ "void split_embedding_codegen_forward_unweighted_kernel<float,"
		  " float, float, false, long, 8ul, 32ul>()", KC_EMBEDDING },
		{ "void at::native::(anonymous namespace)::EmbeddingBag_update"
		  "OutputKernel_sum_mean<float, long>(long const*)",
		  KC_EMBEDDING },
		{ "void at::native::(anonymous namespace)::indexSelectLarge"
		  "Index<float, long, unsigned int, 2, 2, -2, true>()",
		  KC_EMBEDDING },
		{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<"
		  "float, at::native::func_wrapper_t<float, at::native::sum_"
		  "functor<float, float, float>>, unsigned int, float, 4>>()",
		  KC_REDUCTION },
		{ "void cub::DeviceRadixSortOnesweepKernel<int>()",
		  KC_REDUCTION },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::"
		  "CUDAFunctor_add<float>, std::array<char*, 3ul>>(int)",
		  KC_ELEMENTWISE },
		{ "triton_poi_fused_add_cos_sin_0", KC_ELEMENTWISE },
		{ "void multi_tensor_apply_kernel<TensorListMetadata<4>, "
		  "AdamFunctor<float>, float>()", KC_ELEMENTWISE },
	};

	CHECK(*state, v);
}

static void nccl_old_and_new_names_are_communication(void **state)
{
	static const struct named v[] = {
		{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
		  "unsigned long, ncclWork*)", KC_COMMUNICATION },
		{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)",
		  KC_COMMUNICATION },
	};

	CHECK(*state, v);
}

static void copies_and_unknown_names(void **state)
{
	struct kclass_rules *r = *state;

	/* The activity kind decides, whatever the name says. */
	assert_int_equal(kclass_of(r, "memcpy", "Memcpy HtoD (Pageable -> "
				   "Device)"), KC_COPY);
	assert_int_equal(kclass_of(r, "memset", "volta_sgemm_128x32_nn"),
			 KC_COPY);
	assert_int_equal(kclass_of(r, "kernel", "my_own_fancy_op_kernel"),
			 KC_OTHER);
}

static void shipped_addressable_rule(void **state)
{
	struct kclass_rules *r = *state;

	assert_false(kclass_addressable(r, KC_GEMM));
	assert_false(kclass_addressable(r, KC_ATTENTION));
	assert_false(kclass_addressable(r, KC_CONVOLUTION));
	assert_false(kclass_addressable(r, KC_COMMUNICATION));
	assert_false(kclass_addressable(r, KC_COPY));
	assert_true(kclass_addressable(r, KC_EMBEDDING));
	assert_true(kclass_addressable(r, KC_ELEMENTWISE));
	assert_true(kclass_addressable(r, KC_OTHER));
}

static void first_matching_rule_wins(void **state)
{
	static const char text[] =
		"# two rules both match \"conv_gemm\"\n"
		"gemm gemm\n"
		"convolution conv\n"
		"@not-addressable softmax\n";
	struct kclass_rules *r;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(kclass_parse(text, strlen(text), "t", &r, &e), HR_OK);
	assert_int_equal(kclass_of(r, "kernel", "conv_gemm"), KC_GEMM);
	assert_int_equal(kclass_of(r, "kernel", "CONV2D"), KC_CONVOLUTION);
	/* The directive replaces the default: only softmax is excluded. */
	assert_true(kclass_addressable(r, KC_GEMM));
	assert_false(kclass_addressable(r, KC_SOFTMAX));
	kclass_free(r);
}

static void rule_file_errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "gemm gemm\nmatmul mm\n", "t:2: unknown class 'matmul'" },
		{ "gemm\n", "t:1: class 'gemm' without a regular expression" },
		{ "gemm (unclosed\n", "t:1: bad regular expression" },
		{ "@addressable gemm\n", "t:1: unknown directive" },
		{ "@not-addressable gem\n", "t:1: unknown class 'gem'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct kclass_rules *r = NULL;
		struct hr_err e;

		hr_err_clear(&e);
		assert_int_equal(kclass_parse(bad[i].text, strlen(bad[i].text),
					      "t", &r, &e), HR_INPUT);
		assert_null(r);
		if (strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("got '%s', want '%s...'", e.msg, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(vendor_gemm_names_are_gemm,
						load_shipped, free_rules),
		cmocka_unit_test_setup_teardown(
			convolution_is_tested_before_gemm, load_shipped,
			free_rules),
		cmocka_unit_test_setup_teardown(
			attention_kernels_are_attention, load_shipped,
			free_rules),
		cmocka_unit_test_setup_teardown(
			norm_softmax_embedding_reduction_elementwise,
			load_shipped, free_rules),
		cmocka_unit_test_setup_teardown(
			nccl_old_and_new_names_are_communication,
			load_shipped, free_rules),
		cmocka_unit_test_setup_teardown(copies_and_unknown_names,
						load_shipped, free_rules),
		cmocka_unit_test_setup_teardown(shipped_addressable_rule,
						load_shipped, free_rules),
		cmocka_unit_test(first_matching_rule_wins),
		cmocka_unit_test(rule_file_errors_name_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
