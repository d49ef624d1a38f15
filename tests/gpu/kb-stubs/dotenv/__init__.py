"""Stand-in for python-dotenv: KernelBench calls load_dotenv() at import."""


def load_dotenv(*args, **kwargs):
    return False
