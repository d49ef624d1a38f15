# dict.sh - sourced by run.sh and long-run.sh: fuzz_dict TARGET prints the
# dictionary that target's runs use (the grammar of its input).
fuzz_dict()
{
	case $1 in
	npy) echo tests/fuzz/npy.dict ;;
	archive) echo tests/fuzz/archive.dict ;;
	trace_nsys|merge) echo tests/fuzz/nsys.dict ;;
	*) echo tests/fuzz/json.dict ;;
	esac
}
