//===- AdversarialCost.cpp - Epoch time of adversarial training -----------===//
#include "compiler/Analysis/Model/AdversarialCost.h"

#include <cmath>

using namespace sluice::adversarial;

const char *sluice::adversarial::techniqueName(Technique t) {
  switch (t) {
  case Technique::None:
    return "none";
  case Technique::Pgd:
    return "pgd";
  case Technique::Dbac:
    return "dbac";
  case Technique::PeerAid:
    return "peeraid";
  }
  return "none";
}

std::string AttackSpec::check() const {
  if (technique == Technique::None)
    return "";
  if (steps < 1 || steps > 1000)
    return "PGD steps " + std::to_string(steps) + " are outside 1..1000";
  auto inUnit = [](double f) { return f >= 0 && f <= 1; };
  if (!inUnit(fractionStart) || !inUnit(fractionEnd))
    return "an attacked fraction is outside 0..1";
  if (pseudoBatches < 1 || pseudoBatches > 1024)
    return "pseudo-batches " + std::to_string(pseudoBatches) +
           " are outside 1..1024";
  return "";
}

int64_t sluice::adversarial::attackedSamples(const AttackSpec &spec,
                                             int64_t batch, int64_t step,
                                             int64_t steps) {
  if (spec.technique == Technique::None || batch <= 0)
    return 0;
  const double t = steps > 1 ? double(step) / double(steps - 1) : 0.0;
  const double f =
      spec.fractionStart + (spec.fractionEnd - spec.fractionStart) * t;
  const int64_t n = static_cast<int64_t>(std::llround(f * double(batch)));
  return n < 0 ? 0 : (n > batch ? batch : n);
}

EpochCost sluice::adversarial::epochCost(const PassCosts &student,
                                         const PassCosts &peer,
                                         const AttackSpec &spec, int64_t batch,
                                         int64_t steps) {
  EpochCost c;
  const double b = double(batch);
  const double plainStep =
      b * (student.forward + student.backward) + student.perStep;
  c.plainSeconds = plainStep * double(steps);
  const double attackStep =
      double(spec.steps) * (student.forward + student.inputGradient);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t a = attackedSamples(spec, batch, s, steps);
    c.attacked += a;
    double step = plainStep;
    double attack = spec.technique == Technique::None ? 0 : a * attackStep;
    if (spec.technique == Technique::PeerAid) {
      // The peer's clean forward on the attacked samples (the attack's
      // target), its forward and backward on the batch, its optimizer step;
      // the student's second forward and backward (the clean batch).
      const double peerTime =
          a * peer.forward + b * (peer.forward + peer.backward) + peer.perStep;
      c.peerSeconds += peerTime;
      step += peerTime + b * (student.forward + student.backward);
    }
    c.attackSeconds += attack;
    c.seconds += step + attack;
  }
  return c;
}
