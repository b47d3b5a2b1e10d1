// Generator properties (STYLE.md 5: tests of generators are properties too): the two engines
// of the choice source build the same program from the same choice sequence.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/gen/arbitrary.h"
#include "properties/gen/rc_choices.h"
#include "properties/property.h"
#include "stack/ir/equal.h"
#include "stack/ir/printer.h"

using namespace stackcheck;

// A program drawn by RapidCheck, its choices recorded and encoded as bytes, decodes from
// those bytes (the fuzzing engine) into the same program, consuming every byte.
STACKCHECK_PROP(GenProps, both_engines_build_the_same_program, 0.0) {
  gen::ProgramKnobs knobs;
  knobs.illegal_view = *rc::gen::arbitrary<bool>();
  gen::RapidCheckChoices rc_engine;
  gen::RecordingChoices recorded(rc_engine);
  const gen::GeneratedProgram a = gen::generate_program(recorded, knobs);
  gen::tag_features(a.features);
  const std::vector<uint8_t> bytes = gen::encode_choices(recorded.choices());
  gen::ByteChoices byte_engine(bytes);
  const gen::GeneratedProgram b = gen::generate_program(byte_engine, knobs);
  RC_ASSERT(byte_engine.consumed() == bytes.size());
  if (!ir::equal(a.program, b.program))
    RC_FAIL("the byte engine built another program:\n" + ir::print_program(b.program) + "\nfrom\n" +
            ir::print_program(a.program));
  RC_ASSERT(a.features.names() == b.features.names());
}
