"""What test modules share: the moto-backed AWS sandbox and its settings, the review desk driven
through the durable test runner, the live local stack, the read model's report builders, the
browser's launch, the named fakes, and a resolver of the template's intrinsic functions (`cfn`).
Test modules import from here, never from each other."""
