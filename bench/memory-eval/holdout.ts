/**
 * Held-out questions over the household memory (the notes and episodes of household.ts), written
 * by a helper session that never saw the scorer, before the scorer change of 2026-12-01. They test
 * whether the search generalises beyond the questions it was tuned on: do not tune on them, and do
 * not edit them to make a score go up.
 */
import type { Question } from './set.js';

/** `h`: the question hinges on one uncommon word or on a word form the answer spells differently. */
export const HOLDOUT_QUESTIONS: readonly Question[] = [
  // Chargers and battery.
  { q: 'the duck is nearly flat downstairs, where is the closest place to plug it in', answers: ['c2'], h: true },
  { q: 'should I worry about the battery when walking on the bedroom carpet', answers: ['c6'] },
  { q: 'is there a backup battery in the study somewhere', answers: ['c4'] },
  { q: 'do I need to reverse onto the dock in the study', answers: ['c7'], h: true },
  { q: 'how long until an empty battery is fully charged again', answers: ['c5'], h: true },
  { q: 'did the battery ever give out in the middle of a find-and-kick', answers: ['e-battery'] },
  { q: 'battery low, nearest charger', answers: ['c1', 'c2'] },
  // Balls.
  { q: 'the kids want the red ball, has it rolled under the couch again?', answers: ['b1', 'e-stuck', 'e-stuck2', 'e-stuck3'] },
  { q: 'is there a ball out in the garden I could play with', answers: ['b2', 'e-garden'] },
  { q: "is it okay for the duck to play with the dog's ball", answers: ['b5'] },
  { q: 'why is the yellow one bouncing all over the hall', answers: ['b6'], h: true },
  { q: 'the camera says there is an orange ball in the kitchen, is that real', answers: ['s5'] },
  // Kick lessons.
  { q: "I'm half a metre from the ball, will my kick land?", answers: ['k1'], h: true },
  { q: 'is kicking to the left worse on this floor', answers: ['k2'] },
  { q: 'will the pot by the window break if the ball hits it', answers: ['k3'] },
  { q: 'the ball only went half as far as usual, is it the rug', answers: ['k4'] },
  { q: 'my scan straight after the kick found nothing, why', answers: ['k5'], h: true },
  { q: 'is it fine to aim a kick toward the fireplace', answers: ['k6', 'e-fireplace'], h: true },
  { q: 'which ball is the hardest to kick any distance', answers: ['k7', 'b3', 'e-deflated'] },
  { q: 'kick failed, no ball at foot, in the hallway', answers: ['e-mirror', 's3'] },
  // Moving about.
  { q: 'I fell over in the hallway, has that happened before', answers: ['e-fall', 'm1'] },
  { q: 'is it safe to cross the kitchen on a Monday', answers: ['m2', 'e-tiles'], h: true },
  { q: 'I need to face the other way; how sharply can the duck turn without wobbling', answers: ['m3'], h: true },
  { q: 'does the duck veer off course when it reverses a long way', answers: ['m4'], h: true },
  { q: 'can the duck get out into the garden by itself', answers: ['m6'] },
  { q: 'can I walk up into the conservatory', answers: ['m13'], h: true },
  // Hazards.
  { q: 'is it okay to go past the kitchen door', answers: ['h1'] },
  { q: 'the vacuum is running in the living room, what should I do', answers: ['h3', 'e-vacuum'] },
  { q: 'should I worry about the coffee table when I cross the living room', answers: ['h4'] },
  { q: 'is it safe to stand by the fireplace on a winter evening', answers: ['h5'] },
  { q: "what's behind the TV that I should stay away from", answers: ['h6'], h: true },
  { q: 'Tom left his shoes out again, is the hallway blocked?', answers: ['h8'] },
  { q: 'is there anything in the office that could fall over', answers: ['h11'], h: true },
  { q: 'should I worry about anything on the floor if I patrol the playroom this afternoon', answers: ['h12', 'e-lego'], h: true },
  // Camera and sensing.
  { q: 'the scan by the big window at midday came back washed out, why', answers: ['s2'], h: true },
  { q: 'is it too dark to search the living room before six in the evening', answers: ['s4'], h: true },
  { q: 'can I send the duck into the garage', answers: ['s6', 'e-wifi'] },
  { q: 'my distance readings jump around near the balcony', answers: ['s8'], h: true },
  { q: 'the picture is smeary, should I clean the camera', answers: ['s9'], h: true },
  { q: 'the duck is standing still but leans a little, is that a fault', answers: ['s7'], h: true },
  // Hardware.
  { q: 'the right knee makes a noise when crouching, is that new?', answers: ['w2'], h: true },
  { q: "is the duck's speaker loud enough", answers: ['w4'] },
  { q: "what's fragile on the duck's back", answers: ['w5'] },
  // People and pets.
  { q: 'Maria is on the phone, where should the duck not go', answers: ['p3'] },
  { q: 'who comes to play on Saturday', answers: ['p4'], h: true },
  { q: "it's 2pm, can I quack upstairs", answers: ['p7'], h: true },
  { q: 'what does Tom want the duck to bring in on Sunday', answers: ['p9'], h: true },
  { q: 'the cat is asleep on the sofa in my way, what now', answers: ['p2'], h: true },
  // Rooms and rules.
  { q: 'someone is asleep in the bedroom, can I patrol there', answers: ['r1'], h: true },
  { q: "nobody's around, can I go out on the balcony", answers: ['r5'] },
  { q: 'the pantry door is open, is it safe to go in and look for the ball', answers: ['r7'] },
  { q: 'how does the duck get to the upper floor', answers: ['r10'], h: true },
  // The week.
  { q: 'the furniture looks different today, is it Thursday', answers: ['t1'], h: true },
  { q: 'will the garden be wet early on summer mornings', answers: ['t5'] },
  { q: 'is the hallway floor heated', answers: ['t3'], h: true },
  // What worked.
  { q: "what's a good spot to scan several rooms from", answers: ['g1'] },
  { q: 'lost the ball in the dining room, any tips', answers: ['g3', 'g6'] },
  { q: 'how big should my turns be while scanning', answers: ['g5', 'm3'] },
  // Earlier runs.
  { q: 'has the duck ever been knocked over by another robot', answers: ['e-vacuum', 'h3'], h: true },
  { q: 'has the duck ever been stuck by the bath', answers: ['e-towel', 'm8'] },
  // Unanswerable: nothing in the memory answers these; they share only common words with it.
  { q: 'how many people live in this house', answers: [] },
  { q: "what is the dog's name", answers: [] },
  { q: 'how old is the baby', answers: [] },
  { q: 'when is the dog taken for a walk', answers: [] },
  { q: 'who cooks dinner most nights', answers: [] },
  { q: 'what time does the family have breakfast', answers: [] },
  { q: 'which day does the post arrive', answers: [] },
  { q: 'where is the first aid kit', answers: [] },
  { q: 'where does the family keep the umbrellas', answers: [] },
  { q: 'where are the spare light bulbs', answers: [] },
  { q: 'does the house have a second fridge', answers: [] },
  { q: 'which window looks out onto the street', answers: [] },
  { q: 'is the kitchen window open right now', answers: [] },
  { q: 'which room is the coldest in the house', answers: [] },
  { q: 'how big is the garden', answers: [] },
  { q: 'how long is the hallway in metres', answers: [] },
  { q: 'can the duck open a door by itself', answers: [] },
  { q: 'can the robot climb onto the bed', answers: [] },
  { q: 'can the duck carry things on its back', answers: [] },
  { q: 'can the duck read a book out loud', answers: [] },
  { q: 'what happens if the duck gets caught in the rain', answers: [] },
  { q: 'what music does the family like', answers: [] },
  { q: "what is the duck's favourite colour", answers: [] },
  { q: 'does the duck get lonely when nobody is home', answers: [] },
  { q: 'which toys does the baby like best', answers: [] },
  { q: 'where does grandma like to sit', answers: [] },
  { q: 'who feeds the fish', answers: [] },
  { q: 'when did the family move into the house', answers: [] },
  { q: 'how far is the nearest shop from the house', answers: [] },
  { q: 'how many hours a day is the duck switched on', answers: [] },
];
