"""Stand-in for openai: imported by KernelBench's utils, never called by eval."""


class OpenAI:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("openai stand-in: no API client on this machine")
