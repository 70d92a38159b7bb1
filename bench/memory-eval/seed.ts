/**
 * The seed set for `npm run eval:memory`, the first one, kept as a regression check: the fixed
 * memory of one robot grown past the cap: notes a household would write, a few notes that a later
 * note on the same topic supersedes, distinctive episodes among many routine
 * ones, questions with the fixture ids of the entries that answer them, and questions nothing
 * answers (several share a word with some note, which is what makes abstaining hard).
 */
import { routineEpisode, type EvalSet, type Question } from './set.js';

const NOTES: EvalSet['notes'] = [
  { id: 'n01', text: 'the charger dock is under the desk in the study', tags: ['place'] },
  { id: 'n02', text: 'the ball usually ends up near the left wall of the living room', topic: 'ball location' },
  { id: 'n03', text: 'the rug in the hallway is slippery; walk slowly on it' },
  { id: 'n04', text: 'the basement stairs have no gate: never walk past the kitchen door' },
  { id: 'n05', text: 'the cat sleeps on the sofa in the afternoon and may block the path' },
  { id: 'n06', text: 'kicking from more than 0.3 m away misses the ball' },
  { id: 'n07', text: 'turning more than 90 degrees at once makes the duck wobble' },
  { id: 'n08', text: 'the battery lasts about 25 minutes of walking', topic: 'battery' },
  { id: 'n09', text: 'the kitchen floor tiles are wet after mopping on Mondays' },
  { id: 'n10', text: 'the wifi drops in the garage and the duck loses its connection there' },
  { id: 'n11', text: 'Ana likes it when the duck quacks twice to say hello' },
  { id: 'n12', text: 'the front door is kept closed at night' },
  { id: 'n13', text: 'the bedroom is off limits while someone is sleeping' },
  { id: 'n14', text: 'the left foot servo gets hot after long walks' },
  { id: 'n15', text: 'search_scan misses the ball when it lies in the shadow near the window' },
  { id: 'n16', text: 'the living room lamp switches on at 18:00 and helps the camera' },
  { id: 'n17', text: 'the toy box in the corner of the living room holds the spare balls', tags: ['place'] },
  { id: 'n18', text: 'the vacuum robot docks beside the bookshelf; keep away from it' },
  { id: 'n19', text: 'the mirror in the hallway confuses the camera' },
  { id: 'n20', text: 'the garden door has a 5 cm step down that the duck cannot climb' },
  { id: 'n21', text: "the dog's water bowl is next to the fridge; do not spill it" },
  { id: 'n22', text: 'kick right works better than kick left on this floor' },
  { id: 'n23', text: 'the underside of the sofa is 8 cm high: the duck fits under it' },
  { id: 'n24', text: "Tom's shoes are usually left in the hallway and block the way" },
  { id: 'n25', text: 'the best place to wait is the middle of the living room rug' },
  { id: 'n26', text: 'the firmware update is scheduled for Sunday night' },
  { id: 'n27', text: 'the plant pot by the window is fragile; do not kick near it' },
  { id: 'n28', text: 'the ball is blue and slightly deflated' },
  { id: 'n29', text: 'walking backwards more than 1 m drifts to the right' },
  { id: 'n30', text: 'after a fall, wait two seconds before standing up' },
  { id: 'n31', text: 'the study door sticks and is often half open' },
  { id: 'n32', text: 'the name of the robot in this house is Pip' },
  { id: 'n33', text: "the neighbours' kids visit on Saturdays and play with the ball" },
  { id: 'n34', text: 'the coffee table legs are easy to bump into' },
  { id: 'n35', text: 'the dining chairs are pushed under the table in the evening' },
  { id: 'n36', text: 'floor heating makes the hallway warm in the morning' },
  { id: 'n37', text: 'Maria asked that the duck stays out of the office during her calls' },
  { id: 'n38', text: 'the bright sun at noon blinds the camera near the big window' },
  { id: 'n39', text: 'the spare battery is in the drawer under the charger' },
  { id: 'n40', text: 'the laundry basket in the bathroom moves around' },
  // Later facts on an earlier topic: the older text goes to history and is not an answer any more.
  { id: 'n02b', text: 'the ball rolled under the sofa; look there first', topic: 'ball location' },
  { id: 'n08b', text: 'since the new firmware the battery lasts about 20 minutes of walking', topic: 'battery' },
];

/** Distinctive episodes, placed among the routine ones at these positions. */
const SPECIAL_EPISODES: EvalSet['specialEpisodes'] = [
  { id: 'e-battery', at: 300, text: 'find-and-kick: error — battery low, stopped (3 steps) · search_scan: ball found at bearing 12° left, 1.4 m' },
  { id: 'e-stuck', at: 380, text: 'find-and-kick: failure — ball stuck under the sofa, out of reach (9 steps) · search_scan: ball found at bearing 40° right, 2.1 m; kick: ball did not move' },
  { id: 'e-fall', at: 405, text: 'patrol: failure — fell over on the hallway rug (5 steps) · walk: fell after 0.4 m' },
];

/** Routine episodes, grown past the cap so that the oldest are evicted. */
const ROUTINE_EPISODES = 420;


const QUESTIONS: readonly Question[] = [
  { q: 'where is the charger', answers: ['n01'] },
  { q: 'where can I find the charging dock', answers: ['n01'] },
  { q: 'where did the ball go last time', answers: ['n02b'] },
  { q: 'is the hallway rug slippery', answers: ['n03'] },
  { q: 'are there stairs I should avoid', answers: ['n04'] },
  { q: 'where does the cat sleep', answers: ['n05'] },
  { q: 'how far away can I kick from', answers: ['n06'] },
  { q: 'what happens when turning too far at once', answers: ['n07'] },
  { q: 'how long does the battery last', answers: ['n08b'] },
  { q: 'why does the connection drop in the garage', answers: ['n10'] },
  { q: 'how should the duck greet Ana', answers: ['n11'] },
  { q: 'can I go into the bedroom', answers: ['n13'] },
  { q: 'which foot servo overheats', answers: ['n14'] },
  { q: 'why does search_scan miss the ball by the window', answers: ['n15', 'n38'] },
  { q: 'where are the spare balls', answers: ['n17'] },
  { q: 'where does the vacuum robot dock', answers: ['n18'] },
  { q: 'what confuses the camera in the hallway', answers: ['n19'] },
  { q: 'can the duck climb the step at the garden door', answers: ['n20'] },
  { q: "where is the dog's water bowl", answers: ['n21'] },
  { q: 'which kick works better, left or right', answers: ['n22'] },
  { q: 'does the duck fit under the sofa', answers: ['n23'] },
  { q: 'whose shoes block the hallway', answers: ['n24'] },
  { q: 'when is the firmware update', answers: ['n26'] },
  { q: 'what is fragile near the window', answers: ['n27'] },
  { q: 'what colour is the ball', answers: ['n28'] },
  { q: 'does walking backwards drift', answers: ['n29'] },
  { q: 'what should I do after falling', answers: ['n30'] },
  { q: "what is the robot's name", answers: ['n32'] },
  { q: "when do the neighbours' kids visit", answers: ['n33'] },
  { q: 'what do I bump into in the living room', answers: ['n34'] },
  { q: 'where is the spare battery', answers: ['n39'] },
  { q: 'why is the camera blinded at noon', answers: ['n38'] },
  { q: 'where should the duck stay during calls', answers: ['n37'] },
  { q: 'when did the ball get stuck under the sofa', answers: ['e-stuck', 'n02b'] },
  { q: 'which run stopped because the battery was low', answers: ['e-battery'] },
  { q: 'did the duck ever fall over', answers: ['e-fall'] },
  { q: 'when are the dining chairs under the table', answers: ['n35'] },
  { q: 'where is the laundry basket', answers: ['n40'] },
  { q: 'where is the wifi password', answers: [] },
  { q: 'where are the car keys', answers: [] },
  { q: 'what time is dinner', answers: [] },
  { q: 'who won the football game', answers: [] },
  { q: 'how tall is the fridge', answers: [] },
  { q: 'what is the temperature outside', answers: [] },
  { q: 'where is the remote control', answers: [] },
  { q: 'what colour is the sofa', answers: [] },
  { q: "when is Ana's birthday", answers: [] },
  { q: 'what is on the television tonight', answers: [] },
  { q: 'which language does Tom speak', answers: [] },
  { q: 'where is the washing machine', answers: [] },
  { q: 'is it raining', answers: [] },
  { q: "what is the duck's favourite song", answers: [] },
  { q: 'how old is the cat', answers: [] },
];

export const seedSet: EvalSet = { name: 'seed', notes: NOTES, specialEpisodes: SPECIAL_EPISODES, routineEpisodes: ROUTINE_EPISODES, routineEpisode, questions: QUESTIONS };
