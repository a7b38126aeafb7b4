package com.example;
public class Circle extends Shape {
  private static final long serialVersionUID = 2L;
  public double radius = 1.5;
  public int sides = 7;  // hides Shape.sides
  public Color color = Color.RED;
  public transient int ignored = 99;
}
