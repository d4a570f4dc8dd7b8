# dataclasses: generated __init__/__repr__/__eq__, defaults, default_factory, frozen, order
from dataclasses import dataclass, field, asdict, astuple, fields, replace, is_dataclass
import dataclasses
from typing import List, Optional, ClassVar


@dataclass
class ExportConfig:
    name: str
    batch: int = 1
    shapes: List[int] = field(default_factory=list)
    device: Optional[str] = None
    count: ClassVar[int] = 0
    plain = "not a field"


c = ExportConfig("resnet")
print(c, c.batch, c.shapes, ExportConfig.count, c.plain)
d = ExportConfig("resnet", 4, [1, 3], device="cpu")
print(d, d == ExportConfig("resnet", 4, [1, 3], "cpu"), c == d, c != d, is_dataclass(c), is_dataclass(1))
c.shapes.append(7)
print(ExportConfig("x").shapes, [f.name for f in fields(ExportConfig)], asdict(d), astuple(d))
print(replace(d, batch=8), d.batch)
try:
    ExportConfig()
except TypeError as e:
    print(e)
try:
    ExportConfig("a", bad=1)
except TypeError as e:
    print(e)


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int = 0


v = Version(2, 6)
print(v, v < Version(3), v > Version(2, 5), sorted([Version(3), Version(1, 2), v]), hash(v) == hash(Version(2, 6)))
try:
    v.major = 3
except dataclasses.FrozenInstanceError as e:
    print("FrozenInstanceError", e)


@dataclass
class Base:
    major: int
    minor: int = 0


@dataclass
class Child(Base):
    tag: str = "x"

    def __post_init__(self):
        self.tag = self.tag.upper()


print(Child(1, 2, "rc"), Child(1).tag, [f.name for f in fields(Child)])
try:
    @dataclass
    class Bad:
        items: list = []
except ValueError as e:
    print("ValueError", str(e).startswith("mutable default"))


@dataclass
class Nested:
    cfg: ExportConfig
    tags: List[str] = field(default_factory=lambda: ["a"])
    hidden: int = field(default=5, repr=False)


n = Nested(ExportConfig("m"))
print(n, asdict(n))
